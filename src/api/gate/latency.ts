/**
 * How long a request takes upstream, as this process has seen it: wait-or-fail counts a
 * call's own expected duration, so that a call is refused at once rather than sent so
 * close to its deadline that it is aborted mid-flight (an upstream may have charged it).
 * A moving average of answered requests, plus a margin so that an answer a little slower
 * than usual still fits; 0 until one has been seen.
 */
const WEIGHT = 0.3;
const MARGIN = 1.25;

export class ExpectedLatency {
  private average = 0;
  private seen = false;

  observe(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.average = this.seen ? this.average + WEIGHT * (ms - this.average) : ms;
    this.seen = true;
  }

  get ms(): number {
    return Math.round(this.average * MARGIN);
  }
}
