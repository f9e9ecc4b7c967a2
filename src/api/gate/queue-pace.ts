/**
 * How fast a queue of calls gets its turns, as this process has seen it: wait-or-fail
 * counts the waves of requests ahead of a queued call, and a wave takes what the slots
 * actually achieved, not the first answer's duration.
 *
 * While calls are queued, every slot that comes back hands a turn to the next one, so a
 * wave of the cap's turns takes as long as a slot is held: the pace is measured as the time
 * requests hold their slots, averaged over the latest ones. A slot the client keeps through
 * its wait after IN_FLIGHT_EXCEEDED hands a turn on when it comes back, but its time is the
 * client's own backoff (a second, from the API's Retry-After), not the pace: taken as one,
 * behind a share of 1 in flight, it refused 47 calls as needing 49 s that were served in 4.
 *
 * A burst's first wave says little of the pace that follows: it opens connections and may
 * meet a cold upstream (500 calls behind first answers of 600 ms, then 20 ms, were refused
 * as needing 94 s when all were served in 3). So a queue is judged on what came before it
 * (the pace of the last queue, else the duration requests were seen to take) until a
 * request sent on a slot that came back while it waited has answered; with neither, its
 * waves are not counted and its calls wait, their deadline still bounding each. From then
 * on each answer re-estimates it, in both directions.
 *
 * Two readings: `waveMs`, the average, is the wait a call is told; `quickestWaveMs`, the
 * quickest of the latest slot times once several were seen (latest-durations.ts), is the
 * one a refusal at once rests on, since a wave's error is multiplied by every wave ahead.
 */
import type { PermitOutcome } from './account-gate.js';
import { LatestDurations } from './latest-durations.js';

/**
 * Weight of the latest slot's time in the average: about two waves follow a change, and a
 * few slow answers (large pages among small ones) do not swing it (0.3 refused about 50 of
 * 500 calls of bench/soak-memory's agent mix that all could be served, 0.1 about 35).
 */
const WEIGHT = 0.1;

/**
 * How a wait is read: `expected`, the best estimate, is what a call is told (its wait, the
 * retry after a refusal); `soonest` reads every uncertain part as favourably as what was
 * seen allows, and is what a refusal at once rests on.
 */
export type WaitReading = 'expected' | 'soonest';

/** The client keeps a slot refused with IN_FLIGHT_EXCEEDED through its retry wait (retry-driver.ts): its time is that wait. */
export function heldThroughRetryWait(outcome: PermitOutcome): boolean {
  return outcome.code === 'IN_FLIGHT_EXCEEDED';
}

/** What a queue is judged on before it has a pace of its own: what requests were seen to take before it began. */
export interface PaceBefore {
  /** Their average duration (0 when none was seen). */
  expectedMs: number;
  /** The quickest of the latest of them, once several were seen. */
  quickestMs: number | undefined;
}

interface QueuePeriod {
  /** What the queue is judged on until it has a pace of its own. */
  readonly prior: number | undefined;
  readonly priorQuickest: number | undefined;
  /** When the first slot came back while the queue waited: requests sent from then on are its own. */
  firstTurnAt: number | undefined;
  /** The average time its own requests held their slots. */
  waveMs: number | undefined;
  /** The latest of those times. */
  readonly latest: LatestDurations;
}

export class QueuePace {
  private period: QueuePeriod | undefined;
  /** The paces the last queue measured: the next one is judged on them until it has its own. */
  private lastWaveMs: number | undefined;
  private lastQuickestMs: number | undefined;

  /** Calls are queued: a period starts unless one is on. */
  queued(before: PaceBefore): void {
    this.period ??= {
      prior: before.expectedMs > 0 ? before.expectedMs : undefined,
      priorQuickest: before.quickestMs,
      firstTurnAt: undefined,
      waveMs: undefined,
      latest: new LatestDurations(),
    };
  }

  /** The queue is empty: the period ends, its paces kept for the next. */
  emptied(): void {
    this.lastWaveMs = this.period?.waveMs ?? this.lastWaveMs;
    this.lastQuickestMs = this.period?.latest.quickest() ?? this.lastQuickestMs;
    this.period = undefined;
  }

  /**
   * A data request sent at `sentAt` gave its slot back at `now`; `timed` is false when the
   * slot was kept through a retry wait (`heldThroughRetryWait`), which hands a turn on but
   * says nothing of the pace.
   */
  answered(sentAt: number, now: number, timed: boolean): void {
    const period = this.period;
    if (!period) return;
    if (period.firstTurnAt === undefined) {
      // The first turn handed out while the queue waits: its request was sent before the queue's time.
      period.firstTurnAt = now;
      return;
    }
    if (sentAt < period.firstTurnAt || !timed) return;
    const held = Math.max(0, now - sentAt);
    period.waveMs = period.waveMs === undefined ? held : period.waveMs + WEIGHT * (held - period.waveMs);
    period.latest.add(held);
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

  /**
   * The quickest a wave has been shown to take, by the same sources in the same order, each
   * only once several answers showed it (outside a queue, `quickestMs`). Undefined when no
   * pace was shown: then no wave is certain.
   */
  quickestWaveMs(quickestMs: number | undefined): number | undefined {
    const period = this.period;
    const own = period?.latest.quickest();
    if (own !== undefined) return own;
    if (this.lastQuickestMs !== undefined) return this.lastQuickestMs;
    if (period) return period.priorQuickest;
    return quickestMs;
  }
}
