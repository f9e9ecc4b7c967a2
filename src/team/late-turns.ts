/**
 * Wait or fail, for the calls waiting their turn among the account's users. The fair-share
 * gate hands the account gate one request at a time, so the account gate's own wait
 * estimate sees only the head of the line: in a burst of 200 through the --http server,
 * the 58 calls that could not be served were each refused only at their deadline (11 s
 * later, retry_after 1 s), where over stdio the account gate tells them at once.
 *
 * Here the fair-share gate keeps its own picture of when turns come, from the requests it
 * let through and what the server said to them: the window (the server's rate headers, in
 * the account gate's own RateWindow) and the time requests held their slots (a wave of the
 * in-flight slots takes that long while calls wait). A call is refused at once only on what
 * is certain: its soonest turn, with waves at the quickest of the latest slot times once
 * three were seen (one slow answer on a loaded machine, averaged in, multiplies into every
 * wave ahead and refuses calls that are then served), and only the calls certainly ahead of
 * it counted (other nodes' queues not at all, the spec's five slots taken as all this
 * node's). The wait it is told is the expected one, at the average slot time.
 */
import type { ApiError } from '../api/errors.js';
import type { PermitOutcome } from '../api/gate/account-gate.js';
import { ExpectedLatency } from '../api/gate/latency.js';
import { LatestDurations } from '../api/gate/latest-durations.js';
import { heldThroughRetryWait } from '../api/gate/queue-pace.js';
import { RateWindow } from '../api/gate/rate-window.js';
import { tooLateError } from '../api/gate/too-late.js';
import { SPEC_LIMITS } from '../catalog/index.js';

/** How a turn is read: `soonest`, what a refusal at once rests on; `expected`, the wait a call is told. */
export type TurnReading = 'soonest' | 'expected';

/** A request this gate let through: when, and in which window. */
export interface SentRequest {
  readonly at: number;
  readonly generation: number;
  readonly free: boolean;
}

export class LateTurns {
  private readonly window = new RateWindow();
  private readonly latency = new ExpectedLatency();
  /** How long the latest data requests held their slots (the account gate's own rule of a pace shown). */
  private readonly slotTimes = new LatestDurations();
  private inFlight = 0;

  /** A request went out now. */
  sent(free: boolean, now: number): SentRequest {
    this.inFlight += 1;
    return { at: now, generation: this.window.take(now), free };
  }

  /** What the server said to a request this gate let through. */
  heard(request: SentRequest, outcome: PermitOutcome, now: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    // A free request (the start-up openapi.json) says nothing of a data call's time; a slot
    // refused with IN_FLIGHT_EXCEEDED was held through the client's retry wait, not the pace.
    if (!request.free && !heldThroughRetryWait(outcome)) {
      this.slotTimes.add(now - request.at);
      if (outcome.status !== undefined && outcome.code === undefined) this.latency.observe(now - request.at);
    }
    // Refused for the in-flight cap: the answer's headers say whether the server counted it.
    if (outcome.code === 'IN_FLIGHT_EXCEEDED') this.window.untake(request.generation, now);
    if (outcome.headers) this.window.observe(outcome.headers, now);
  }

  /** How long a request itself is expected to take (0 until one was seen): the account gate counts it too. */
  requestMs(): number {
    return this.latency.ms;
  }

  /** The instant a call with `ahead` requests certainly before it can go, read `soonest` or `expected`. */
  turnAt(ahead: number, now: number, reading: TurnReading): number {
    const cap = SPEC_LIMITS.inFlight;
    const waveMs = this.waveMs(reading);
    const windowAt = this.window.turnAt(ahead, now);
    // In the window it goes in, the requests before it there go out in waves of the slots.
    if (windowAt !== undefined && windowAt > now) return windowAt + Math.floor(this.window.placeInItsWindow(ahead, now) / cap) * waveMs;
    const free = Math.max(0, cap - this.inFlight);
    const waves = ahead < free ? 0 : Math.floor((ahead - free) / cap) + 1;
    return now + waves * waveMs;
  }

  /** A wave's time: none counted until a pace was shown. */
  private waveMs(reading: TurnReading): number {
    return (reading === 'soonest' ? this.slotTimes.quickest() : this.slotTimes.average()) ?? 0;
  }
}

/** A call refused for its turn: `ahead`, the calls before it that are kept; `place`, every call before it. */
export interface LateCall<T> {
  readonly waiter: T;
  readonly ahead: number;
  readonly place: number;
}

/**
 * The calls queued whose turn comes too late, as `late` judges each by the calls that
 * certainly go before it. The queues take turns (turns.ts), a round at a time: a call in
 * round r follows every call of the rounds before it that is not refused itself. Which of
 * a round's turns comes first is not counted: across nodes the shared turns decide it.
 * Each refused call's `place` counts the refused ones before it as well: told to come
 * back at their own turns, they do not all come back at once.
 */
export function lateInTurns<T extends object>(queues: Iterable<readonly T[]>, late: (waiter: T, ahead: number) => boolean): LateCall<T>[] {
  const lists = [...queues];
  const refused: LateCall<T>[] = [];
  let kept = 0;
  for (let round = 0; ; round += 1) {
    const inRound = lists.map((queue) => queue[round]).filter((waiter): waiter is T => waiter !== undefined);
    if (inRound.length === 0) return refused;
    const ahead = kept;
    for (const waiter of inRound) {
      if (late(waiter, ahead)) refused.push({ waiter, ahead, place: ahead + refused.length });
      else kept += 1;
    }
  }
}

/** The answer of a call whose turn among the account's users would come after its deadline; nothing was sent. */
export function turnTooLateError(waitMs: number, ahead: number): ApiError {
  return tooLateError({
    waitMs,
    among: "among the account's users",
    reason: `${ahead} calls are ahead of it, and the account's request window and in-flight slots let them go no faster`,
  });
}
