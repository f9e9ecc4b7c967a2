/**
 * How fast a queue of calls gets its turns, as this process has seen it: wait-or-fail
 * counts the waves of requests ahead of a queued call, and a wave takes what the slots
 * actually achieved, not the first answer's duration.
 *
 * While calls are queued, every slot that comes back hands a turn to the next one, so a
 * wave of the cap's turns takes as long as a slot is held: the pace is measured as the time
 * requests hold their slots (answer, retry waits and all), averaged over the latest ones.
 *
 * A burst's first wave says little of the pace that follows: it opens connections and may
 * meet a cold upstream (500 calls behind first answers of 600 ms, then 20 ms, were refused
 * as needing 94 s when all were served in 3). So a queue is judged on what came before it
 * (the pace of the last queue, else the duration requests were seen to take) until a
 * request sent on a slot that came back while it waited has answered; with neither, its
 * waves are not counted and its calls wait, their deadline still bounding each. From then
 * on each answer re-estimates it, in both directions.
 */

/**
 * Weight of the latest slot's time in the average: about two waves follow a change, and a
 * few slow answers (large pages among small ones) do not swing it (0.3 refused about 50 of
 * 500 calls of bench/soak-memory's agent mix that all could be served, 0.1 about 35).
 */
const WEIGHT = 0.1;

interface QueuePeriod {
  /** What the queue is judged on until it has a pace of its own. */
  readonly prior: number | undefined;
  /** When the first slot came back while the queue waited: requests sent from then on are its own. */
  firstTurnAt: number | undefined;
  /** The average time its own requests held their slots. */
  waveMs: number | undefined;
}

export class QueuePace {
  private period: QueuePeriod | undefined;
  /** The pace the last queue measured: the next one is judged on it until it has its own. */
  private lastWaveMs: number | undefined;

  /** Calls are queued: a period starts unless one is on. `expectedMs` is how long requests were seen to take (0 when unknown). */
  queued(expectedMs: number): void {
    this.period ??= { prior: expectedMs > 0 ? expectedMs : undefined, firstTurnAt: undefined, waveMs: undefined };
  }

  /** The queue is empty: the period ends, its pace kept for the next. */
  emptied(): void {
    this.lastWaveMs = this.period?.waveMs ?? this.lastWaveMs;
    this.period = undefined;
  }

  /** A data request sent at `sentAt` gave its slot back at `now`. */
  answered(sentAt: number, now: number): void {
    const period = this.period;
    if (!period) return;
    if (period.firstTurnAt === undefined) {
      // The first turn handed out while the queue waits: its request was sent before the queue's time.
      period.firstTurnAt = now;
      return;
    }
    if (sentAt < period.firstTurnAt) return;
    const held = Math.max(0, now - sentAt);
    period.waveMs = period.waveMs === undefined ? held : period.waveMs + WEIGHT * (held - period.waveMs);
  }

  /**
   * How long a wave of the cap's turns takes: the queue's own pace once a request sent on a
   * slot that came back while it waited has answered; before that the last queue's, or the
   * duration requests were seen to take before it began (outside a queue, `expectedMs`).
   * Undefined when nothing is known yet.
   */
  waveMs(expectedMs: number): number | undefined {
    const period = this.period;
    if (period?.waveMs !== undefined) return period.waveMs;
    if (this.lastWaveMs !== undefined) return this.lastWaveMs;
    if (period) return period.prior;
    return expectedMs > 0 ? expectedMs : undefined;
  }
}
