/**
 * How fast calls queued for an in-flight slot get their turns, as this process has seen
 * it: wait-or-fail counts the waves of requests ahead of a queued call, and a wave takes
 * what the slots actually achieved, not the first answer's duration.
 *
 * The pace is measured over a stretch: from the moment calls wait for a slot (the window
 * and any pause allow sending) until none does. Within it, every slot that comes back
 * hands a turn to a queued call, so the times slots came back are the turns. A wave is
 * the time the last `size` turns took, over whole waves of the stretch's first wave's
 * size (requests sent together answer together; a count across a wave's middle would
 * read a burst of answers as the pace).
 *
 * A burst's first wave says little of the pace that follows: it opens connections and may
 * meet a cold upstream (500 calls behind first answers of 600 ms, then 20 ms, were refused
 * as needing 94 s when all were served in 3). So a stretch is judged on what came before
 * it (the last stretch's pace, else the duration requests were seen to take) until a
 * request sent within it has answered; with neither, its waves are not counted at all
 * and its calls wait, their deadline still bounding each.
 */

/** Waves measured over at most this many whole first waves: recent enough to follow a change, long enough to smooth one slow answer. */
const WAVES_MEASURED = 4;

interface Stretch {
  /** Requests in flight when calls began to wait: the first wave, answered before any turn was handed out here. */
  readonly firstWave: number;
  /** What the stretch is judged on until it has a pace of its own. */
  readonly prior: number | undefined;
  /** When slots came back during the stretch (the latest last), at most what a measurement uses. */
  readonly turns: number[];
}

export class QueuePace {
  private stretch: Stretch | undefined;
  /**
   * What a wave of the last stretch that measured its own pace took: its turns' pace times
   * its first wave, about one request's duration at the slots it had, and so a fair prior
   * for a stretch at another share of the slots.
   */
  private lastWaveMs: number | undefined;

  /**
   * Calls wait for a slot from now on: a stretch starts, unless one is on. `inFlight` is
   * how many requests are out; `expectedMs`, how long one is seen to take (0 when unknown).
   */
  waiting(inFlight: number, expectedMs: number): void {
    if (this.stretch) return;
    this.stretch = { firstWave: Math.max(1, inFlight), prior: expectedMs > 0 ? expectedMs : undefined, turns: [] };
  }

  /** No call waits for a slot any more (the queue is empty, or it waits for the window or a pause): the stretch ends, its pace kept. */
  idle(): void {
    const stretch = this.stretch;
    if (!stretch) return;
    const perTurn = this.measuredPerTurn(stretch);
    if (perTurn !== undefined) this.lastWaveMs = perTurn * stretch.firstWave;
    this.stretch = undefined;
  }

  /** A slot came back at `now`. */
  freed(now: number): void {
    const stretch = this.stretch;
    if (!stretch) return;
    stretch.turns.push(now);
    const keep = stretch.firstWave * WAVES_MEASURED + 1;
    if (stretch.turns.length > keep) stretch.turns.splice(0, stretch.turns.length - keep);
  }

  /** Whether the wave time comes from this stretch's own turns (rather than from before it). */
  get measured(): boolean {
    return this.stretch !== undefined && this.measuredPerTurn(this.stretch) !== undefined;
  }

  /**
   * How long a wave of `cap` turns takes: `cap` turns at this stretch's pace once a request
   * sent within it has answered; before that (or outside a stretch) a wave of the last
   * stretch that measured one; else the duration requests were seen to take before this
   * stretch began (outside one, `expectedMs`). Undefined when nothing is known yet.
   */
  waveMs(cap: number, expectedMs: number): number | undefined {
    const stretch = this.stretch;
    const perTurn = stretch ? this.measuredPerTurn(stretch) : undefined;
    if (perTurn !== undefined) return perTurn * Math.max(1, cap);
    if (this.lastWaveMs !== undefined) return this.lastWaveMs;
    if (stretch) return stretch.prior;
    return expectedMs > 0 ? expectedMs : undefined;
  }

  /** Milliseconds a turn took, over whole first-wave sizes of the latest turns; undefined until a turn beyond the first wave. */
  private measuredPerTurn(stretch: Stretch): number | undefined {
    const turns = stretch.turns;
    const waves = Math.min(WAVES_MEASURED, Math.floor((turns.length - 1) / stretch.firstWave));
    if (waves < 1) return undefined;
    const count = waves * stretch.firstWave;
    const last = turns[turns.length - 1] ?? 0;
    const first = turns[turns.length - 1 - count] ?? last;
    // Turns at one instant (a fake clock, or answers read in one tick) still take time.
    return Math.max(1, last - first) / count;
  }
}
