/**
 * The durations of the latest few answers, read as the pace a refusal at once may rest on:
 * the quickest of them, and only once several have been seen.
 *
 * Wait or fail multiplies the time of a wave by every wave ahead of a call, so an error in
 * it grows with the queue. An average started from its first answer carries a moment (one
 * answer slowed by a loaded machine) through a dozen answers more: behind a share of 1 in
 * flight, 47 calls were refused as needing 49 s at a 1 s wave and then served in 4 s at
 * 90 ms. The quickest of the latest answers is what the upstream has shown it can do now;
 * one slow answer among them changes nothing, and a pace that has really slowed fills them
 * within a few waves.
 */

/** How many answers are kept: two waves of the account's 5 in flight. */
const LATEST = 10;
/** How many answers show a pace: fewer are a moment. */
const SHOWN_BY = 3;

export class LatestDurations {
  private readonly latest: number[] = [];
  /** Kept as answers come: wait-or-fail reads it for every queued call at every answer. */
  private shown: number | undefined;

  add(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.latest.push(ms);
    if (this.latest.length > LATEST) this.latest.shift();
    this.shown = this.latest.length < SHOWN_BY ? undefined : Math.min(...this.latest);
  }

  /** The quickest of the latest answers once enough were seen to be a pace; undefined before. */
  quickest(): number | undefined {
    return this.shown;
  }

  /** Their average, once enough were seen to be a pace: the wait a call is told, not one it is refused on. */
  average(): number | undefined {
    return this.shown === undefined ? undefined : this.latest.reduce((sum, ms) => sum + ms, 0) / this.latest.length;
  }
}
