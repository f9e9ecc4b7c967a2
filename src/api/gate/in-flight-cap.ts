/**
 * How many requests this process keeps in flight. The account allows 5 in all, shared
 * by every process of it, and this process cannot see the others except through
 * IN_FLIGHT_EXCEEDED. So the cap is found the way TCP finds a link's capacity:
 * - a fair share: when the rate headers show N processes spending the window, at most 5/N;
 * - slow start (optional, from `initial`): double after each round of answers up to the
 *   account's 5;
 * - multiplicative decrease: IN_FLIGHT_EXCEEDED (another process is sending) halves the
 *   cap, once per burst of refusals;
 * - additive increase: one slot back per quiet period without a refusal, so a process
 *   left alone regains the whole limit.
 */
import { SPEC_LIMITS } from '../../catalog/index.js';
import { partOf, WHOLE_ACCOUNT, type AccountPart } from './account-share.js';

export interface InFlightCapOptions {
  /** The account's limit (spec: 5). */
  max?: number;
  /**
   * Where slow start begins; default the account's limit, so that a process alone (the
   * common case) never waits for a round trip to use its slots. A deployment that always
   * runs several processes on one account can start lower and probe.
   */
  initial?: number;
  /** Refusals closer together than this are one burst: the cap halves once for it. */
  burstMs?: number;
  /** A quiet period (no refusal) after which the cap grows by one slot. */
  growAfterMs?: number;
}

export class InFlightCap {
  readonly max: number;
  private cap: number;
  /** Slow start doubles the cap until here; a refusal lowers it to the halved cap. */
  private threshold: number;
  private answeredThisRound = 0;
  private active = 0;
  private readonly burstMs: number;
  private readonly growAfterMs: number;
  private lastDecreaseAt = -Infinity;
  private lastChangeAt = 0;
  /** The fair share the rate headers last showed (the account's limit until they show others). */
  private share: number;
  /** This process's part of the account while its processes cannot see each other (see `shareAmong`). */
  private part: AccountPart = WHOLE_ACCOUNT;

  constructor(options: InFlightCapOptions = {}) {
    this.max = options.max ?? SPEC_LIMITS.inFlight;
    this.cap = Math.min(this.max, Math.max(1, options.initial ?? this.max));
    this.threshold = this.max;
    this.share = this.max;
    this.burstMs = options.burstMs ?? 500;
    this.growAfterMs = options.growAfterMs ?? 60_000;
  }

  /** The current cap, after any additive growth that is due at `now`. */
  current(now: number): number {
    if (this.cap < this.max && this.cap >= this.threshold && now - this.lastChangeAt >= this.growAfterMs) {
      const steps = Math.floor((now - this.lastChangeAt) / this.growAfterMs);
      this.cap = Math.min(this.max, this.cap + steps);
      this.threshold = this.cap;
      this.lastChangeAt += steps * this.growAfterMs;
    }
    return Math.min(this.cap, this.partCap());
  }

  /**
   * `parts` processes share the account and cannot see each other's requests as they are
   * sent (their shared gate on Redis is away): this one keeps to its part of the account's
   * slots, at least one, so that together they stay within the account's limit rather
   * than learn it from IN_FLIGHT_EXCEEDED (src/api/gate/account-share.ts). WHOLE_ACCOUNT gives back the whole limit.
   */
  shareAmong(part: AccountPart): void {
    this.part = part;
    if (part.processes <= 1) return;
    // Redis's count is better knowledge than a share guessed from the rate headers before:
    // the part (with its remainder) is the cap, not what those headers left it.
    const mine = this.partCap();
    this.share = mine;
    if (this.cap >= mine) return;
    this.cap = mine;
    this.threshold = mine;
    this.answeredThisRound = 0;
  }

  private partCap(): number {
    return partOf(this.max, this.part);
  }

  /**
   * The cap a wait estimate may count on: the share in force, not a moment's halving by an
   * IN_FLIGHT_EXCEEDED (which the next seconds undo), nor the account's whole limit when
   * the headers show others spending it (the queue drains at the share, not at the limit).
   */
  expected(now: number): number {
    return Math.min(this.partCap(), Math.max(1, this.current(now), Math.min(this.max, this.share)));
  }

  hasRoom(now: number): boolean {
    return this.active < this.current(now);
  }

  get inFlight(): number {
    return this.active;
  }

  take(): void {
    this.active += 1;
  }

  give(): void {
    this.active = Math.max(0, this.active - 1);
  }

  /** An answer other than IN_FLIGHT_EXCEEDED: in slow start, a full round of them doubles the cap. */
  answered(now: number): void {
    if (this.cap >= this.threshold) return;
    this.answeredThisRound += 1;
    if (this.answeredThisRound < this.cap) return;
    this.answeredThisRound = 0;
    this.cap = Math.min(this.threshold, this.cap * 2);
    this.lastChangeAt = now;
  }

  /**
   * The rate headers show about `processes` processes spending the account's window:
   * keep to a fair share of its in-flight limit rather than wait to be refused. The
   * window, not the in-flight cap, bounds the account's pace (60 a minute), so a share
   * costs no throughput, while a burst of every process at full cap costs refusals.
   */
  shareWith(processes: number, now: number): void {
    // With a part in force (Redis away) the membership Redis listed decides, not this guess
    // from the ratio of requests (which counts processes only when they send alike);
    // IN_FLIGHT_EXCEEDED still halves the cap if an unlisted process takes slots.
    const fair = this.part.processes > 1 ? this.partCap() : Math.max(1, Math.floor(this.max / Math.max(1, processes)));
    this.share = fair;
    if (this.current(now) <= fair) return;
    this.cap = fair;
    this.threshold = fair;
    this.answeredThisRound = 0;
    this.lastChangeAt = now;
  }

  /** IN_FLIGHT_EXCEEDED: another process is sending. */
  refused(now: number): void {
    if (now - this.lastDecreaseAt < this.burstMs) return;
    this.current(now);
    this.cap = Math.max(1, Math.floor(this.cap / 2));
    this.threshold = this.cap;
    this.answeredThisRound = 0;
    this.lastDecreaseAt = now;
    this.lastChangeAt = now;
  }
}
