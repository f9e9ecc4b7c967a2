/**
 * What the client does with each kind of answer, as data. The client reads this table;
 * it holds no per-code branches of its own.
 */
import type { ErrorCode } from './errors.js';

export type RetryRule =
  /** 202: the data is being built; poll (not charged) until the deadline. */
  | { kind: 'poll'; minDelayMs: number; maxDelayMs: number }
  /** Wait what the server says (body retry_after_seconds or Retry-After), then retry. */
  | { kind: 'wait-server'; maxRetries: number; pauseAccount: boolean }
  /** A short jittered wait, then retry. */
  | { kind: 'jitter'; minDelayMs: number; maxDelayMs: number; maxRetries: number }
  /** Jittered exponential backoff. */
  | { kind: 'backoff'; baseDelayMs: number; maxDelayMs: number; maxRetries: number }
  /** Stop; later calls fail fast without a request until the quota resets. */
  | { kind: 'latch-quota' }
  /** Stop; remember the capability as disabled for `rememberMs`. */
  | { kind: 'remember-disabled'; rememberMs: number }
  /** Never retried: the request itself must change. */
  | { kind: 'never' };

const NEVER: RetryRule = { kind: 'never' };
const SERVER_ERROR: RetryRule = { kind: 'backoff', baseDelayMs: 500, maxDelayMs: 5000, maxRetries: 2 };

export const RETRY_POLICY: Record<ErrorCode, RetryRule> = {
  NOT_READY: { kind: 'poll', minDelayMs: 500, maxDelayMs: 4000 },
  READ_MODEL_UNAVAILABLE: { kind: 'wait-server', maxRetries: 3, pauseAccount: false },
  RATE_LIMITED: { kind: 'wait-server', maxRetries: 3, pauseAccount: true },
  CIRCUIT_OPEN: { kind: 'wait-server', maxRetries: 3, pauseAccount: true },
  IN_FLIGHT_EXCEEDED: { kind: 'jitter', minDelayMs: 200, maxDelayMs: 800, maxRetries: 3 },
  INTERNAL_ERROR: SERVER_ERROR,
  UPSTREAM_ERROR: SERVER_ERROR,
  UPSTREAM_TIMEOUT: SERVER_ERROR,
  NETWORK_ERROR: SERVER_ERROR,
  QUOTA_EXHAUSTED: { kind: 'latch-quota' },
  SERVICE_DISABLED: { kind: 'remember-disabled', rememberMs: 5 * 60_000 },
  AUTH_MISSING: NEVER,
  AUTH_INVALID: NEVER,
  AUTH_PAUSED: NEVER,
  SCOPE_INSUFFICIENT: NEVER,
  KEY_LIMIT_REACHED: NEVER,
  VALIDATION_ERROR: NEVER,
  TICKER_INVALID: NEVER,
  CONTRACT_SYMBOL_INVALID: NEVER,
  INDEX_UNSUPPORTED: NEVER,
  RANGE_TOO_DEEP: NEVER,
  RESPONSE_TOO_LARGE: NEVER,
  NOT_FOUND: NEVER,
  // A 200 whose body broke has already cost a unit: another try would cost one more.
  RESPONSE_INVALID: NEVER,
  RESPONSE_TOO_LARGE_LOCAL: NEVER,
  DEADLINE_EXCEEDED: NEVER,
  CANCELLED: NEVER,
  CONFIG_INVALID: NEVER,
};

/** Delay before retry number `attempt` (1-based) under a backoff or jitter rule. */
export function retryDelayMs(rule: RetryRule, attempt: number, random: () => number = Math.random): number {
  if (rule.kind === 'backoff') {
    const ceiling = Math.min(rule.maxDelayMs, rule.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + random() * (ceiling / 2));
  }
  if (rule.kind === 'jitter' || rule.kind === 'poll') {
    const ceiling = rule.kind === 'poll' ? Math.min(rule.maxDelayMs, rule.minDelayMs * 2 ** (attempt - 1)) : rule.maxDelayMs;
    return Math.round(rule.minDelayMs + random() * (ceiling - rule.minDelayMs));
  }
  return 0;
}
