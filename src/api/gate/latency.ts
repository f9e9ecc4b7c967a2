/**
 * How long a request takes upstream, as this process has seen it: wait-or-fail counts a
 * call's own expected duration, so that a call is refused at once rather than sent so
 * close to its deadline that it is aborted mid-flight (an upstream may have charged it).
 * A moving average of answered requests, plus a margin so that an answer a little slower
 * than usual still fits; 0 until one has been seen. Beside it, the quickest of the latest
 * answers (latest-durations.ts): what a refusal at once may count on.
 */
import { LatestDurations } from './latest-durations.js';

const WEIGHT = 0.3;
const MARGIN = 1.25;

export class ExpectedLatency {
  private average = 0;
  private seen = false;
  private readonly latest = new LatestDurations();

  observe(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.average = this.seen ? this.average + WEIGHT * (ms - this.average) : ms;
    this.seen = true;
    this.latest.add(ms);
  }

  get ms(): number {
    return Math.round(this.average * MARGIN);
  }

  /** The quickest of the latest requests, once several were seen; undefined before. */
  get quickestMs(): number | undefined {
    return this.latest.quickest();
  }
}
