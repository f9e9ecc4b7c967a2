/**
 * The service's three limits, counted per account (and the request rate per IP as well):
 * a fixed per-minute window, requests in flight, and the monthly quota of units. Their
 * default values are the spec's (SPEC_LIMITS in src/catalog/spec-limits.ts).
 */

export interface LimitSettings {
  /** Requests per window per account (spec: 60). */
  perWindow: number;
  /** Requests per window per client IP (spec: 200). */
  perIpPerWindow: number;
  /** Window length; the spec's is one minute. Tests use short ones. */
  windowMs: number;
  /** Requests in flight per account (spec: 5). */
  inFlight: number;
  /** Units per quota period (spec: 100,000 a month). */
  monthlyQuota: number;
  /** Quota period; default the calendar month (UTC). Tests use short periods. */
  quotaPeriodMs?: number;
  /**
   * Whether a request refused with IN_FLIGHT_EXCEEDED still counts against the window.
   * The spec does not say; default counted (the stricter reading), and the client must
   * meet its goals both ways.
   */
  countRefusedInFlight?: boolean;
}

/** A fixed window aligned to multiples of its length, so the reset instant is the same for everyone. */
export class FixedWindowCounter {
  private windowStart = 0;
  private count = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  private roll(now: number): void {
    const start = Math.floor(now / this.windowMs) * this.windowMs;
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.count = 0;
    }
  }

  /** Counts one request if the window has room; false when it is spent. */
  tryTake(now: number): boolean {
    this.roll(now);
    if (this.count >= this.limit) return false;
    this.count += 1;
    return true;
  }

  /** Gives back the request counted last (one the service decided not to count after all). */
  refund(now: number): void {
    this.roll(now);
    this.count = Math.max(0, this.count - 1);
  }

  state(now: number): { limit: number; remaining: number; resetAtMs: number } {
    this.roll(now);
    return { limit: this.limit, remaining: Math.max(0, this.limit - this.count), resetAtMs: this.windowStart + this.windowMs };
  }
}

export function nextQuotaReset(now: number, periodMs: number | undefined): number {
  if (periodMs !== undefined) return (Math.floor(now / periodMs) + 1) * periodMs;
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

export class QuotaMeter {
  private used = 0;
  private resetAt: number;

  constructor(
    readonly limit: number,
    private readonly periodMs: number | undefined,
    now: number,
  ) {
    this.resetAt = nextQuotaReset(now, periodMs);
  }

  private roll(now: number): void {
    if (now >= this.resetAt) {
      this.used = 0;
      this.resetAt = nextQuotaReset(now, this.periodMs);
    }
  }

  remaining(now: number): number {
    this.roll(now);
    return Math.max(0, this.limit - this.used);
  }

  charge(now: number): void {
    this.roll(now);
    this.used += 1;
  }

  setUsed(used: number, now: number): void {
    this.roll(now);
    this.used = used;
  }

  resetAtMs(now: number): number {
    this.roll(now);
    return this.resetAt;
  }
}

export class AccountLimits {
  readonly rate: FixedWindowCounter;
  readonly quota: QuotaMeter;
  inFlight = 0;
  maxInFlightSeen = 0;

  private readonly countRefusedInFlight: boolean;

  constructor(settings: LimitSettings, now: number) {
    this.rate = new FixedWindowCounter(settings.perWindow, settings.windowMs);
    this.quota = new QuotaMeter(settings.monthlyQuota, settings.quotaPeriodMs, now);
    this.countRefusedInFlight = settings.countRefusedInFlight ?? true;
  }

  /** A request was refused with IN_FLIGHT_EXCEEDED after the window counted it. */
  refusedInFlight(now: number): void {
    if (!this.countRefusedInFlight) this.rate.refund(now);
  }
}
