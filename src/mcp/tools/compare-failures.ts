/**
 * What `volatility_compare` says of the requests it could not make or that failed: one
 * entry per ticker and measure beside the rows it got, each with the code, the retry
 * guidance and the action of a tool error; and, only when nothing at all was got, one
 * error that tells the truth about the whole call (which tickers, which codes) rather
 * than the words of its first failure ("nothing was sent" of one request, said of a call
 * that sent several).
 */
import { apiError, type ApiError } from '../../api/errors.js';
import { docsUrlOf } from '../answers/error-docs.js';
import { nextAction } from '../answers/tool-errors.js';

export interface CompareFailure {
  ticker: string;
  /** The measure that failed; absent when the ticker failed whole (every measure asked). */
  measure?: 'skew' | 'anomaly';
  error: Record<string, unknown>;
}

/** A failure as an entry of `failed`: the agent retries that ticker alone, by the same guidance as any tool error. */
export function failureEntry(ticker: string, error: ApiError, measure?: 'skew' | 'anomaly'): CompareFailure {
  return { ticker, ...(measure ? { measure } : {}), error: failedError(error) };
}

/** The error of one failed part of a call over several names or datasets, as a tool error says it. */
export function failedError(error: ApiError): Record<string, unknown> {
  return {
    code: error.code,
    message: error.message,
    hint: error.hint ?? null,
    recoverable: error.recoverable,
    retry_after_seconds: error.retryAfterSeconds ?? null,
    action: nextAction(error),
    docs_url: docsUrlOf(error),
    ...(error.charged === undefined ? {} : { charged: error.charged }),
  };
}

/** A part of a call over several names or datasets that failed: its name as the error says it, and its error. */
export interface FailedPart {
  readonly name: string;
  readonly error: ApiError;
}

/**
 * The error of a call none of whose parts was answered: `what` says so ("Nothing was
 * answered"), each part is named with its code, then the units spent; the first failure's
 * code and guidance, the longest wait any asked for, recoverable if any part is.
 */
export function noneAnswered(what: string, failures: readonly FailedPart[], units: unknown): ApiError {
  const first = failures[0]?.error;
  if (!first) return apiError('INTERNAL_ERROR', { status: null, recoverable: false, local: true });
  const byName = failures.map((f) => `${f.name} ${f.error.code}`).join(', ');
  const waits = failures.map((f) => f.error.retryAfterSeconds).filter((s): s is number => s !== undefined && s > 0);
  // A part still out when the deadline passed or the call was stopped may have been charged
  // (its error says charged neither way): "no unit spent" would send the agent to repeat it.
  const outUnknown = failures.some(
    (f) => (f.error.code === 'DEADLINE_EXCEEDED' || f.error.code === 'CANCELLED') && f.error.charged === undefined,
  );
  const spent =
    typeof units === 'number' && units > 0
      ? `${units} unit${units === 1 ? '' : 's'} spent`
      : outUnknown
        ? 'cost not known: a part was still out'
        : 'no unit spent';
  return apiError(first.kind, {
    code: first.code,
    status: first.status,
    message: `${what} (${byName}); ${spent}.`,
    hint: first.hint,
    recoverable: failures.some((f) => f.error.recoverable),
    retryAfterSeconds: waits.length > 0 ? Math.max(...waits) : undefined,
    docsUrl: first.docsUrl,
    requestId: first.requestId,
    local: failures.every((f) => f.error.local),
    // What the whole call cost, where known: a unit spent, or every part known to have cost none.
    ...(typeof units === 'number' && units > 0
      ? { charged: true }
      : failures.every((f) => f.error.charged === false)
        ? { charged: false }
        : {}),
  });
}
