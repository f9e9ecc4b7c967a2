/**
 * The monthly quota as the server last told it, and the latch that QUOTA_EXHAUSTED sets:
 * until the reset, data requests fail here without a request. Free endpoints (discover,
 * health, openapi.json) cost no unit and still go, so api_status can show the budget.
 */
export interface QuotaView {
  limit: number | null;
  remaining: number | null;
  resetsAt: number | null;
  exhaustedUntil: number | null;
}

export class QuotaLatch {
  private limit: number | null = null;
  private remaining: number | null = null;
  private resetsAt: number | null = null;
  private latchedUntil: number | null = null;

  /** Aligns with X-Quota-* headers; a server that says 0 left latches as QUOTA_EXHAUSTED does. */
  observe(
    headers: { quotaLimit?: number | undefined; quotaRemaining?: number | undefined; quotaResetAt?: number | undefined },
    now: number,
  ): void {
    if (headers.quotaLimit !== undefined) this.limit = headers.quotaLimit;
    if (headers.quotaResetAt !== undefined) this.resetsAt = headers.quotaResetAt;
    if (headers.quotaRemaining !== undefined) {
      this.remaining = headers.quotaRemaining;
      if (headers.quotaRemaining === 0 && headers.quotaResetAt !== undefined) this.latch(headers.quotaResetAt);
      // Units came back (a new month, a raised plan): the latch no longer holds.
      else if (headers.quotaRemaining > 0 && this.latchedUntil !== null && this.latchedUntil > now) this.latchedUntil = null;
    }
  }

  latch(untilMs: number): void {
    this.latchedUntil = untilMs;
    this.remaining = 0;
    this.resetsAt = untilMs;
  }

  /** Milliseconds until a data request may go again, or 0 when it may go now. Free requests always may. */
  refusesFor(free: boolean, now: number): number {
    if (free || this.latchedUntil === null) return 0;
    if (now >= this.latchedUntil) {
      this.latchedUntil = null;
      return 0;
    }
    return this.latchedUntil - now;
  }

  view(now: number): QuotaView {
    const exhausted = this.latchedUntil !== null && this.latchedUntil > now;
    return {
      limit: this.limit,
      remaining: exhausted ? 0 : this.remaining,
      resetsAt: this.resetsAt,
      exhaustedUntil: exhausted ? this.latchedUntil : null,
    };
  }
}
