/**
 * A gate that wraps another and changes only what it overrides (usually `acquire`): the
 * account's facts (pauses, the quota latch, disabled capabilities) and its view stay the
 * wrapped gate's, forwarded here once rather than in every wrapper.
 */
import type { AccountGate, GateView, PermitRequest, SendPermit } from './account-gate.js';

export abstract class GateDecorator implements AccountGate {
  constructor(protected readonly inner: AccountGate) {}

  abstract acquire(request: PermitRequest): Promise<SendPermit>;

  pause(untilMs: number): void {
    this.inner.pause(untilMs);
  }
  inFlightRefused(): void {
    this.inner.inFlightRefused();
  }
  latchQuota(resetAtMs: number): void {
    this.inner.latchQuota(resetAtMs);
  }
  rememberDisabled(capability: string, untilMs: number): void {
    this.inner.rememberDisabled(capability, untilMs);
  }
  disabledFor(capability: string): Promise<number | undefined> {
    return this.inner.disabledFor(capability);
  }
  view(): Promise<GateView> {
    return this.inner.view();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
