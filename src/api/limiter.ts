/**
 * One limiter per account. bottleneck holds the queue and the in-flight cap. The budget
 * of requests left in the server's rate window is counted here, synchronously: a job
 * takes one unit of budget just before it sends, so no adjustment can race a send (an
 * absolute bottleneck reservoir update is applied asynchronously and did race). The
 * server's headers are the truth and re-align the budget after every response; it
 * refills at the instant the server says its window resets, or when a Retry-After
 * pause ends, never on a timer of its own choosing.
 */
import Bottleneck from 'bottleneck';
import { abortError, ApiError } from './errors.js';

export interface LimitHeaders {
  rateLimit?: number | undefined;
  rateRemaining?: number | undefined;
  /** Epoch milliseconds at which the server's rate window resets. */
  rateResetAt?: number | undefined;
  quotaLimit?: number | undefined;
  quotaRemaining?: number | undefined;
  /** Epoch milliseconds of the monthly quota reset. */
  quotaResetAt?: number | undefined;
}

export interface BudgetView {
  rate_limit_per_window: number;
  rate_remaining: number | null;
  rate_window_resets_at: string | null;
  paused_until: string | null;
  in_flight: number;
  queued: number;
  max_in_flight: number;
  quota_limit: number | null;
  quota_remaining: number | null;
  quota_resets_at: string | null;
  quota_exhausted: boolean;
  disabled: string[];
}

export interface LimiterOptions {
  maxInFlight?: number;
  /** Requests per window until the server says otherwise (spec: 60 a minute). */
  perWindow?: number;
  now?: () => number;
}

/** Slack after the server's reset instant before sending again (clock and rounding). */
const RESET_SLACK_MS = 50;

export class AccountLimiter {
  private readonly bottleneck: Bottleneck;
  private readonly now: () => number;
  readonly maxInFlight: number;
  private rateLimit: number;
  private reservoir: number;
  private windowResetAt: number | null = null;
  private pausedUntil = 0;
  private refillAt: number | null = null;
  private refillTimer: NodeJS.Timeout | undefined;
  private quota: { limit: number | null; remaining: number | null; resetAt: number | null } = {
    limit: null,
    remaining: null,
    resetAt: null,
  };
  private quotaLatchedUntil: number | null = null;
  private readonly disabledUntil = new Map<string, number>();
  /** Jobs that took budget and have not had their answer yet: the server may not have counted them. */
  private sending = 0;
  private readonly budgetWaiters = new Set<() => void>();
  private closed = false;

  constructor(options: LimiterOptions = {}) {
    this.maxInFlight = options.maxInFlight ?? 5;
    this.rateLimit = options.perWindow ?? 60;
    this.reservoir = this.rateLimit;
    this.now = options.now ?? Date.now;
    this.bottleneck = new Bottleneck({ maxConcurrent: this.maxInFlight });
  }

  /**
   * Runs `send` (exactly one HTTP request) when the account has budget. Fails at once,
   * without a request, when the quota is latched or the wait would cross `deadline`.
   */
  async run<T>(
    send: () => Promise<T>,
    options: { signal: AbortSignal; deadline: number; onWait?: (waitMs: number) => void; limitsOf?: (answer: T) => LimitHeaders },
  ): Promise<T> {
    this.assertQuotaOpen();
    const wait = this.expectedWaitMs();
    if (wait > 0) {
      if (this.now() + wait > options.deadline) {
        throw new ApiError({
          code: 'RATE_LIMITED',
          status: null,
          message: `The account's request budget is spent for ${Math.ceil(wait / 1000)} s; waiting would cross this call's deadline.`,
          hint: 'Retry after retry_after_seconds; other calls are queued meanwhile.',
          recoverable: true,
          retryAfterSeconds: Math.ceil(wait / 1000),
          local: true,
        });
      }
      options.onWait?.(wait);
    }
    const job = this.bottleneck.schedule(async () => {
      // A job whose caller is gone sends nothing.
      if (!(await this.takeBudget(options.signal))) return undefined;
      this.sending += 1;
      try {
        const value = await send();
        // Align before the slot frees: the next queued job must see the server's budget.
        if (options.limitsOf) this.observe(options.limitsOf(value));
        return { value };
      } finally {
        this.sending -= 1;
      }
    });
    const outcome = await raceAbort(job, options.signal);
    if (!outcome) throw abortError(options.signal);
    return outcome.value;
  }

  /** Aligns the local view with the server's headers, the truth for every process of the account. */
  observe(headers: LimitHeaders): void {
    if (headers.rateLimit !== undefined) this.rateLimit = headers.rateLimit;
    if (headers.rateRemaining !== undefined && headers.rateResetAt !== undefined) {
      // Other requests already sent may not have been counted by the server yet.
      const serverLeft = Math.max(0, headers.rateRemaining - Math.max(0, this.sending - 1));
      const paused = this.pausedUntil > this.now();
      if (this.windowResetAt === null || headers.rateResetAt > this.windowResetAt) {
        this.windowResetAt = headers.rateResetAt;
        if (!paused) this.setReservoir(serverLeft);
      } else if (headers.rateResetAt === this.windowResetAt && serverLeft < this.reservoir) {
        // Within a window the budget only shrinks: other processes of the account spend it too.
        this.setReservoir(serverLeft);
      }
      this.scheduleRefill(Math.max(this.windowResetAt, this.pausedUntil));
    }
    if (headers.quotaLimit !== undefined) this.quota.limit = headers.quotaLimit;
    if (headers.quotaRemaining !== undefined) this.quota.remaining = headers.quotaRemaining;
    if (headers.quotaResetAt !== undefined) this.quota.resetAt = headers.quotaResetAt;
    if (headers.quotaRemaining === 0 && headers.quotaResetAt !== undefined) this.latchQuota(headers.quotaResetAt);
  }

  /** RATE_LIMITED or CIRCUIT_OPEN: nothing is sent by anyone until `untilMs`. */
  pause(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
    this.setReservoir(0);
    this.scheduleRefill(this.pausedUntil);
  }

  latchQuota(resetAt: number): void {
    this.quotaLatchedUntil = resetAt;
    this.quota.remaining = 0;
  }

  rememberDisabled(capability: string, untilMs: number): void {
    this.disabledUntil.set(capability, untilMs);
  }

  /** Seconds left of a remembered SERVICE_DISABLED, or undefined. */
  disabledFor(capability: string): number | undefined {
    const until = this.disabledUntil.get(capability);
    if (until === undefined) return undefined;
    if (until <= this.now()) {
      this.disabledUntil.delete(capability);
      return undefined;
    }
    return Math.ceil((until - this.now()) / 1000);
  }

  view(): BudgetView {
    const counts = this.bottleneck.counts();
    const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
    return {
      rate_limit_per_window: this.rateLimit,
      rate_remaining: this.reservoir,
      rate_window_resets_at: iso(this.windowResetAt),
      paused_until: this.pausedUntil > this.now() ? iso(this.pausedUntil) : null,
      in_flight: this.sending,
      queued: counts.QUEUED + counts.RECEIVED,
      max_in_flight: this.maxInFlight,
      quota_limit: this.quota.limit,
      quota_remaining: this.quota.remaining,
      quota_resets_at: iso(this.quota.resetAt),
      quota_exhausted: this.quotaLatchedUntil !== null && this.quotaLatchedUntil > this.now(),
      disabled: [...this.disabledUntil.keys()].filter((c) => this.disabledFor(c) !== undefined),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refillTimer);
    for (const wake of [...this.budgetWaiters]) wake();
    await this.bottleneck.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }

  private assertQuotaOpen(): void {
    if (this.quotaLatchedUntil === null) return;
    const now = this.now();
    if (now >= this.quotaLatchedUntil) {
      this.quotaLatchedUntil = null;
      return;
    }
    const resetAt = new Date(this.quotaLatchedUntil).toISOString();
    throw new ApiError({
      code: 'QUOTA_EXHAUSTED',
      status: 429,
      message: `The account's monthly quota is used up until ${resetAt}.`,
      hint: `No request was sent. Calls resume after ${resetAt}; free tools such as api_status still work.`,
      recoverable: true,
      retryAfterSeconds: Math.ceil((this.quotaLatchedUntil - now) / 1000),
      local: true,
    });
  }

  private expectedWaitMs(): number {
    const now = this.now();
    if (this.pausedUntil > now) return this.pausedUntil - now;
    const counts = this.bottleneck.counts();
    const ahead = counts.QUEUED + counts.RECEIVED + this.budgetWaiters.size;
    if (this.reservoir - ahead > 0 || this.refillAt === null) return 0;
    return Math.max(0, this.refillAt - now);
  }

  private setReservoir(value: number): void {
    this.reservoir = value;
    if (value > 0) for (const wake of [...this.budgetWaiters]) wake();
  }

  /** Takes one request of budget, waiting for a refill when it is spent; false if aborted first. */
  private async takeBudget(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted && !this.closed) {
      if (this.reservoir > 0 && this.pausedUntil <= this.now()) {
        this.reservoir -= 1;
        return true;
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          this.budgetWaiters.delete(wake);
          signal.removeEventListener('abort', wake);
          resolve();
        };
        this.budgetWaiters.add(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
    return false;
  }

  private scheduleRefill(at: number): void {
    this.refillAt = at;
    clearTimeout(this.refillTimer);
    this.refillTimer = setTimeout(
      () => {
        this.refillAt = null;
        this.pausedUntil = 0;
        this.setReservoir(this.rateLimit);
      },
      Math.max(0, at - this.now()) + RESET_SLACK_MS,
    );
    this.refillTimer.unref();
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
