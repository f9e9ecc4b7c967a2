/**
 * Wait or fail, for the calls waiting their turn among the account's users. The fair-share
 * gate hands the account gate one request at a time, so the account gate's own wait
 * estimate sees only the head of the line: in a burst of 200 through the --http server,
 * the 58 calls that could not be served were each refused only at their deadline (11 s
 * later, retry_after 1 s), where over stdio the account gate tells them at once.
 *
 * Here the fair-share gate keeps its own picture of when turns come, from the requests it
 * let through and what the server said to them, with the account gate's own parts: the
 * window (the server's rate headers: RateWindow) and the pace at which a queue's requests
 * go out behind the in-flight slots (QueuePace). A call whose turn comes after its deadline
 * is told so at once, with the wait, judged as the account gate judges its own queue. Only
 * the calls certainly ahead of it are counted (other nodes' queues not at all, and the
 * spec's five slots are taken as all this node's), so a call let wait may still meet its
 * deadline timer, but none is refused that the account gate by itself would serve.
 */
import { ApiError } from '../api/errors.js';
import type { PermitOutcome } from '../api/gate/account-gate.js';
import { ExpectedLatency } from '../api/gate/latency.js';
import { heldThroughRetryWait, QueuePace } from '../api/gate/queue-pace.js';
import { RateWindow } from '../api/gate/rate-window.js';
import { SPEC_LIMITS } from '../catalog/index.js';

/** A request this gate let through: when, and in which window. */
export interface SentRequest {
  readonly at: number;
  readonly generation: number;
  readonly free: boolean;
}

export class LateTurns {
  private readonly window = new RateWindow();
  private readonly pace = new QueuePace();
  private readonly latency = new ExpectedLatency();
  private inFlight = 0;

  /** A request went out now. */
  sent(free: boolean, now: number): SentRequest {
    this.inFlight += 1;
    return { at: now, generation: this.window.take(now), free };
  }

  /** What the server said to a request this gate let through. */
  heard(request: SentRequest, outcome: PermitOutcome, now: number): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    // As the account gate counts them: a free request (the start-up openapi.json) says nothing of a data call's time.
    if (!request.free) {
      this.pace.answered(request.at, now, !heldThroughRetryWait(outcome));
      if (outcome.status !== undefined && outcome.code === undefined) this.latency.observe(now - request.at);
    }
    // Refused for the in-flight cap: the answer's headers say whether the server counted it.
    if (outcome.code === 'IN_FLIGHT_EXCEEDED') this.window.untake(request.generation, now);
    if (outcome.headers) this.window.observe(outcome.headers, now);
  }

  /** Whether calls are waiting here: the pace of a queue is its own requests'. */
  waiting(queued: boolean): void {
    if (queued) this.pace.queued({ expectedMs: this.latency.ms, quickestMs: this.latency.quickestMs });
    else this.pace.emptied();
  }

  /** How long a request itself is expected to take (0 until one was seen): the account gate counts it too. */
  requestMs(): number {
    return this.latency.ms;
  }

  /** The earliest instant a call with `ahead` requests certainly before it can go. */
  turnAt(ahead: number, now: number): number {
    const cap = SPEC_LIMITS.inFlight;
    const waveMs = this.pace.waveMs(this.latency.ms) ?? 0;
    const windowAt = this.window.turnAt(ahead, now);
    // In the window it goes in, the requests before it there go out in waves of the slots.
    if (windowAt !== undefined && windowAt > now) return windowAt + Math.floor(this.window.placeInItsWindow(ahead, now) / cap) * waveMs;
    const free = Math.max(0, cap - this.inFlight);
    const waves = ahead < free ? 0 : Math.floor((ahead - free) / cap) + 1;
    return now + waves * waveMs;
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
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiError({
    code: 'RATE_LIMITED',
    status: null,
    message: `This call's turn among the account's users would come in about ${seconds} s (${ahead} calls are ahead of it, and the account's request window and in-flight slots let them go no faster): it could not be answered before its deadline; nothing was sent.`,
    hint: 'Call again after retry_after_seconds, or ask for fewer things at once.',
    recoverable: true,
    retryAfterSeconds: seconds,
    local: true,
  });
}
