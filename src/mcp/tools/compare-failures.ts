/**
 * What `volatility_compare` says of the requests it could not make or that failed: one
 * entry per ticker and measure beside the rows it got, each with the code, the retry
 * guidance and the action of a tool error; and, only when nothing at all was got, one
 * error that tells the truth about the whole call (which tickers, which codes) rather
 * than the words of its first failure ("nothing was sent" of one request, said of a call
 * that sent several).
 */
import { ApiError } from '../../api/errors.js';
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
  };
}

/** The error of a call none of whose tickers was answered, naming each one's code. */
export function nothingAnswered(failures: readonly { ticker: string; error: ApiError }[], units: number): ApiError {
  const first = failures[0]?.error;
  if (!first) return new ApiError({ code: 'INTERNAL_ERROR', status: null, recoverable: false, local: true });
  const byTicker = failures.map((f) => `${f.ticker} ${f.error.code}`).join(', ');
  const waits = failures.map((f) => f.error.retryAfterSeconds).filter((s): s is number => s !== undefined);
  const recoverable = failures.some((f) => f.error.recoverable);
  const spent = units > 0 ? `${units} unit${units === 1 ? '' : 's'} spent` : 'no unit spent';
  return new ApiError({
    code: first.code,
    kind: first.kind,
    status: first.status,
    message: `None of the ${failures.length} tickers was answered (${byTicker}); ${spent}.`,
    hint: first.hint,
    recoverable,
    retryAfterSeconds: waits.length > 0 ? Math.max(...waits) : undefined,
    docsUrl: first.docsUrl,
    requestId: first.requestId,
    local: failures.every((f) => f.error.local),
  });
}
