/**
 * A small in-process stand-in for issue 8's gate, used as the fallback in these tests:
 * an in-flight cap, the pause, the quota latch, the disabled memory and wait-or-fail on
 * the caller's deadline. It keeps no rate window: the server's 429s teach the driver.
 */
import { ApiError, abortError } from '../../src/api/errors.js';
import type { AccountGate, GateView, PermitRequest, SendPermit } from '../../src/api/gate/account-gate.js';

export class StandInGate implements AccountGate {
  private inFlight = 0;
  private pausedUntil = 0;
  private quotaUntil = 0;
  private readonly disabled = new Map<string, number>();
  private readonly waiters: (() => void)[] = [];
  acquired = 0;

  constructor(private readonly maxInFlight = 5) {}

  async acquire(request: PermitRequest): Promise<SendPermit> {
    if (!request.free && this.quotaUntil > Date.now()) {
      throw new ApiError({ code: 'QUOTA_EXHAUSTED', status: 429, message: 'quota latched', local: true });
    }
    for (;;) {
      if (request.signal.aborted) throw abortError(request.signal);
      const now = Date.now();
      const wait = Math.max(0, this.pausedUntil - now);
      if (now + wait > request.deadline) {
        throw new ApiError({
          code: 'RATE_LIMITED',
          status: null,
          message: 'paused',
          retryAfterSeconds: Math.ceil(wait / 1000),
          local: true,
        });
      }
      if (wait === 0 && this.inFlight < this.maxInFlight) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait > 0 ? wait : Math.max(0, request.deadline - now));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (Date.now() >= request.deadline) {
        throw new ApiError({ code: 'RATE_LIMITED', status: null, message: 'no slot in time', retryAfterSeconds: 1, local: true });
      }
    }
    this.inFlight += 1;
    this.acquired += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.inFlight -= 1;
        this.waiters.shift()?.();
      },
    };
  }

  pause(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs);
  }
  inFlightRefused(): void {}
  latchQuota(resetAtMs: number): void {
    this.quotaUntil = resetAtMs;
  }
  rememberDisabled(capability: string, untilMs: number): void {
    this.disabled.set(capability, untilMs);
  }
  disabledFor(capability: string): Promise<number | undefined> {
    const until = this.disabled.get(capability) ?? 0;
    return Promise.resolve(until > Date.now() ? Math.ceil((until - Date.now()) / 1000) : undefined);
  }
  view(): Promise<GateView> {
    return Promise.resolve({
      mode: 'in-process',
      mode_reason: null,
      rate_limit_per_window: 60,
      rate_remaining: null,
      rate_window_resets_at: null,
      paused_until: null,
      in_flight: this.inFlight,
      queued: this.waiters.length,
      max_in_flight: this.maxInFlight,
      quota_limit: null,
      quota_remaining: null,
      quota_resets_at: null,
      quota_exhausted: this.quotaUntil > Date.now(),
      disabled: [...this.disabled.keys()],
    });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
