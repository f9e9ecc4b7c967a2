/**
 * What the client does with each kind of answer, as data: the retry column of the
 * error table. The client reads it and holds no per-code branches of its own.
 *
 * One retry budget per call: a rule's `maxRetries` bounds the retries the call has
 * made in all, whatever codes they were for, so 500, 502, 504 and a reset in a row are
 * 2 retries, not 2 of each. Polls of a 202 are not failures and are bounded by the
 * deadline alone.
 */
import { ERROR_TABLE, type ErrorCode, type RetryRule } from '../catalog/index.js';

export type { RetryRule };

export const RETRY_POLICY: Readonly<Record<ErrorCode, RetryRule>> = Object.fromEntries(
  Object.entries(ERROR_TABLE).map(([code, row]) => [code, row.retry]),
) as Record<ErrorCode, RetryRule>;

/** Whether a call that has already retried `retriesSoFar` times may retry under `rule`. */
export function mayRetry(rule: RetryRule, retriesSoFar: number): boolean {
  if (rule.kind === 'poll') return true;
  if (rule.kind === 'wait-server' || rule.kind === 'in-flight' || rule.kind === 'backoff') return retriesSoFar < rule.maxRetries;
  return false;
}

/**
 * The wait before the next try under `rule`. `attempt` is the 1-based number of this
 * kind of wait in the call; `serverWaitMs` the server's Retry-After, authoritative: no
 * retry goes sooner than it says.
 */
export function retryDelayMs(
  rule: RetryRule,
  attempt: number,
  serverWaitMs: number | undefined,
  random: () => number = Math.random,
): number {
  const server = serverWaitMs ?? 0;
  switch (rule.kind) {
    case 'backoff': {
      const ceiling = Math.min(rule.maxDelayMs, rule.baseDelayMs * 2 ** (attempt - 1));
      return Math.max(server, Math.round(ceiling / 2 + random() * (ceiling / 2)));
    }
    case 'in-flight':
      return Math.max(server, Math.round(rule.minDelayMs + random() * (rule.maxDelayMs - rule.minDelayMs)));
    case 'poll': {
      // The server's hint is followed, but never below the floor: a "0" would spend the window in polls.
      const backoff = Math.min(rule.maxDelayMs, rule.floorMs * 2 ** (attempt - 1));
      return Math.max(rule.floorMs, serverWaitMs ?? backoff);
    }
    case 'wait-server':
      return serverWaitMs ?? rule.defaultWaitMs;
    default:
      return 0;
  }
}
