/**
 * Wait or fail, said once: the answer of a call whose turn would come after its deadline.
 * The in-process gate, the Redis gate and the team's fair turns each judge the turn; this
 * is what the agent hears of it (nothing was sent, and when to come back).
 */
import { ApiError, apiError } from '../errors.js';

export interface TooLate {
  /** How long until the call's turn (Infinity: no turn in sight; told as a minute). */
  waitMs: number;
  /** Why, in words: the window spent, the calls ahead. */
  reason: string;
  /** How long the request itself is expected to take once sent (0: not said). */
  requestMs?: number;
  /** Whose turn it waits for, where not the account's alone ("among the account's users"). */
  among?: string;
}

const AGAIN = 'Call again after retry_after_seconds, or ask for fewer things at once.';

export function tooLateError({ waitMs, reason, requestMs = 0, among }: TooLate): ApiError {
  const seconds = Number.isFinite(waitMs) ? Math.max(1, Math.ceil(waitMs / 1000)) : 60;
  const takes = requestMs > 0 ? ` and the request itself takes about ${Math.max(1, Math.round(requestMs / 1000))} s` : '';
  // No status: nothing was sent, so there is no answer's status to report.
  return apiError('RATE_LIMITED', {
    status: null,
    message: `This call's turn${among ? ` ${among}` : ''} would come in about ${seconds} s (${reason})${takes}: it could not be answered before its deadline; nothing was sent.`,
    hint: AGAIN,
    retryAfterSeconds: seconds,
    local: true,
  });
}

/** The answer of a call that waited for its turn among the account's users (team/fair-share-gate.ts) until its deadline. */
export function turnMissedError(seconds: number): ApiError {
  return apiError('RATE_LIMITED', {
    status: null,
    message: "This call's turn among the account's users did not come before its deadline; nothing was sent.",
    hint: AGAIN,
    retryAfterSeconds: seconds,
    local: true,
  });
}
