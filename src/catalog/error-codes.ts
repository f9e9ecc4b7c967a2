/**
 * Every error code, once: the spec's codes and the client's own. Each row holds the
 * code's status, whether it is recoverable, how the client retries it, what the agent
 * should do next, the spec's action, the simulator's tags and default message. The
 * simulator's envelopes, the client's status mapping, its retry policy and the tool
 * guidance all read this table; none keeps a list of codes of its own.
 */

/** What the agent should do next, as the tool error says it. */
export type NextAction =
  'retry_after_wait' | 'fix_input' | 'check_configuration' | 'wait_for_quota_reset' | 'degrade' | 'retry_later' | 'do_not_retry';

export type RetryRule =
  /** 202: the data is being built; poll (not charged) until the deadline, never faster than `floorMs`. */
  | { kind: 'poll'; floorMs: number; maxDelayMs: number }
  /** Wait what the server says (Retry-After or the body's retry_after_seconds), then retry. */
  | { kind: 'wait-server'; maxRetries: number; pauseAccount: boolean; defaultWaitMs: number }
  /** Another process of the account is sending: hold the slot for a jittered wait (at least Retry-After), shrink the cap, retry. */
  | { kind: 'in-flight'; minDelayMs: number; maxDelayMs: number; maxRetries: number }
  /** Jittered exponential backoff (at least Retry-After). */
  | { kind: 'backoff'; baseDelayMs: number; maxDelayMs: number; maxRetries: number }
  /** Stop; later data calls fail fast without a request until the quota resets. */
  | { kind: 'latch-quota' }
  /** Stop; remember the capability as disabled for `rememberMs`. */
  | { kind: 'remember-disabled'; rememberMs: number }
  /** Never retried: the request itself must change, or it was already charged. */
  | { kind: 'never' };

export interface ErrorRow {
  /** The HTTP status the code comes with; null for the client's own codes decided without one. */
  readonly status: number | null;
  readonly recoverable: boolean;
  readonly retry: RetryRule;
  /** Fixed next step for the agent; absent: by recoverability and whether a wait is known. */
  readonly next?: NextAction;
  /** What to do, in the spec's words where it has them. */
  readonly action: string;
  /** Statuses that mean this code when the body carries no envelope. */
  readonly forStatus?: readonly number[];
  readonly tags: readonly string[];
  readonly message: string;
}

const NEVER: RetryRule = { kind: 'never' };
/** The README's "2 retries": per call, in all, whatever mix of these failures it meets. */
const SERVER_ERROR: RetryRule = { kind: 'backoff', baseDelayMs: 500, maxDelayMs: 5000, maxRetries: 2 };
const WAIT_SERVER: RetryRule = { kind: 'wait-server', maxRetries: 3, pauseAccount: false, defaultWaitMs: 1000 };
const PAUSE_ACCOUNT: RetryRule = { kind: 'wait-server', maxRetries: 3, pauseAccount: true, defaultWaitMs: 1000 };

/** The spec's table (Errors section), with the client's rule for each. */
export const API_ERROR_CODES = {
  AUTH_MISSING: {
    status: 401,
    recoverable: false,
    retry: NEVER,
    next: 'check_configuration',
    action: 'send the bearer key',
    tags: ['auth'],
    message: 'No Authorization header was sent.',
  },
  AUTH_INVALID: {
    status: 401,
    recoverable: false,
    retry: NEVER,
    next: 'check_configuration',
    action: 'check or regenerate the API key',
    forStatus: [401],
    tags: ['auth'],
    message: 'The API key is invalid or revoked.',
  },
  AUTH_PAUSED: {
    status: 402,
    recoverable: false,
    retry: NEVER,
    next: 'check_configuration',
    action: 'restore the subscription; the same key resumes',
    forStatus: [402],
    tags: ['auth', 'billing'],
    message: 'The subscription has lapsed; API access is paused.',
  },
  SCOPE_INSUFFICIENT: {
    status: 403,
    recoverable: false,
    retry: NEVER,
    next: 'check_configuration',
    action: 'consult GET /v1/discover for the key scope',
    forStatus: [403],
    tags: ['auth', 'scope'],
    message: 'The API key lacks the scope this endpoint needs.',
  },
  KEY_LIMIT_REACHED: {
    status: 409,
    recoverable: false,
    retry: NEVER,
    next: 'check_configuration',
    action: 'revoke one key',
    forStatus: [409],
    tags: ['keys'],
    message: 'The account already holds 5 active keys.',
  },
  VALIDATION_ERROR: {
    status: 400,
    recoverable: false,
    retry: NEVER,
    next: 'fix_input',
    action: 'fix the parameter named in the hint',
    forStatus: [400, 422],
    tags: ['validation'],
    message: 'A query parameter is invalid.',
  },
  TICKER_INVALID: {
    status: 400,
    recoverable: false,
    retry: NEVER,
    next: 'fix_input',
    action: 'fix the ticker spelling',
    tags: ['validation', 'ticker'],
    message: 'The ticker fails this endpoint’s pattern.',
  },
  CONTRACT_SYMBOL_INVALID: {
    status: 400,
    recoverable: false,
    retry: NEVER,
    next: 'fix_input',
    action: 'fix the OSI contract symbol',
    tags: ['validation', 'contract'],
    message: 'The option contract symbol is not in OSI format.',
  },
  INDEX_UNSUPPORTED: {
    status: 422,
    recoverable: false,
    retry: NEVER,
    next: 'fix_input',
    action: 'use a supported, non-index symbol',
    tags: ['validation', 'ticker'],
    message: 'Index underlyings are not supported by this endpoint.',
  },
  RANGE_TOO_DEEP: {
    status: 404,
    recoverable: false,
    retry: NEVER,
    next: 'fix_input',
    action: 'move `from` inside the retention window',
    tags: ['range'],
    message: 'The requested history reaches before the retention window.',
  },
  RESPONSE_TOO_LARGE: {
    status: 422,
    recoverable: false,
    retry: NEVER,
    next: 'fix_input',
    action: 'lower `limit`, shorten the range, or use format=summary',
    tags: ['size'],
    message: 'The response would exceed the size ceiling.',
  },
  NOT_FOUND: {
    status: 404,
    recoverable: false,
    retry: NEVER,
    next: 'do_not_retry',
    action: 'do not retry',
    forStatus: [404, 410],
    tags: ['catalog'],
    message: 'Not in the service catalogue.',
  },
  READ_MODEL_UNAVAILABLE: {
    status: 503,
    recoverable: true,
    retry: WAIT_SERVER,
    action: 'retry after retry_after_seconds',
    forStatus: [503],
    tags: ['availability'],
    message: 'The data is not available right now.',
  },
  SERVICE_DISABLED: {
    status: 503,
    recoverable: false,
    retry: { kind: 'remember-disabled', rememberMs: 5 * 60_000 },
    next: 'degrade',
    action: 'degrade; retry at low frequency',
    tags: ['availability'],
    message: 'This capability is disabled for now.',
  },
  RATE_LIMITED: {
    status: 429,
    recoverable: true,
    retry: PAUSE_ACCOUNT,
    action: 'wait Retry-After',
    forStatus: [429],
    tags: ['limits', 'rate'],
    message: 'Too many requests in this minute.',
  },
  QUOTA_EXHAUSTED: {
    status: 429,
    recoverable: true,
    retry: { kind: 'latch-quota' },
    next: 'wait_for_quota_reset',
    action: 'wait for the monthly reset (X-Quota-Reset-At)',
    tags: ['limits', 'quota'],
    message: 'The monthly quota is used up.',
  },
  IN_FLIGHT_EXCEEDED: {
    status: 429,
    recoverable: true,
    retry: { kind: 'in-flight', minDelayMs: 200, maxDelayMs: 800, maxRetries: 3 },
    action: 'lower concurrency',
    tags: ['limits', 'concurrency'],
    message: 'Too many requests in flight.',
  },
  CIRCUIT_OPEN: {
    status: 429,
    recoverable: true,
    retry: PAUSE_ACCOUNT,
    action: 'back off per Retry-After',
    tags: ['limits', 'circuit'],
    message: 'The server-side circuit breaker is open.',
  },
  UPSTREAM_ERROR: {
    status: 502,
    recoverable: true,
    retry: SERVER_ERROR,
    action: 'retry later',
    forStatus: [502],
    tags: ['upstream'],
    message: 'A data-path failure could not be served from an older value.',
  },
  UPSTREAM_TIMEOUT: {
    status: 504,
    recoverable: true,
    retry: SERVER_ERROR,
    action: 'retry later',
    forStatus: [504],
    tags: ['upstream'],
    message: 'The data path timed out.',
  },
  INTERNAL_ERROR: {
    status: 500,
    recoverable: true,
    retry: SERVER_ERROR,
    action: 'retry later; report request_id',
    forStatus: [500],
    tags: ['internal'],
    message: 'Unexpected server error.',
  },
} as const satisfies Record<string, ErrorRow>;

/** Codes of this client: failures on this side of the wire, and answers the spec has no code for. */
export const CLIENT_ERROR_CODES = {
  NETWORK_ERROR: {
    status: null,
    recoverable: true,
    retry: SERVER_ERROR,
    action: 'retry later; check the network and MARKET_DATA_BASE_URL',
    tags: ['network'],
    message: 'The request failed before an answer arrived.',
  },
  BASE_URL_UNREACHABLE: {
    status: null,
    recoverable: false,
    retry: NEVER,
    next: 'check_configuration',
    action: 'check MARKET_DATA_BASE_URL: its host does not resolve or refuses connections',
    tags: ['network', 'configuration'],
    message: 'The API host could not be reached.',
  },
  UPSTREAM_REFUSED: {
    status: null,
    recoverable: false,
    retry: NEVER,
    next: 'do_not_retry',
    action: 'do not retry as is; the API refused the request with a status the spec does not list',
    tags: ['upstream'],
    message: 'The API refused the request.',
  },
  DEADLINE_EXCEEDED: {
    status: null,
    recoverable: true,
    retry: NEVER,
    action: 'retry, or ask for less data',
    tags: ['deadline'],
    message: 'Out of time before the API answered.',
  },
  RESPONSE_INVALID: {
    // A 200 whose body broke has already cost a unit: another try would cost one more.
    status: null,
    recoverable: true,
    retry: NEVER,
    action: 'retry later; the API answered something that is not the expected JSON',
    tags: ['upstream'],
    message: 'The API answered something that is not the expected JSON.',
  },
  RESPONSE_TOO_LARGE_LOCAL: {
    status: null,
    recoverable: false,
    retry: NEVER,
    next: 'fix_input',
    action: 'narrow the request (limit, range, format=summary) or raise MARKET_DATA_MAX_RESPONSE_BYTES',
    tags: ['size'],
    message: "The response is larger than this server's cap.",
  },
  CANCELLED: {
    status: null,
    recoverable: false,
    retry: NEVER,
    next: 'do_not_retry',
    action: 'none: the caller cancelled',
    tags: ['cancelled'],
    message: 'Cancelled by the caller.',
  },
  OPERATION_UNREADABLE: {
    status: null,
    recoverable: false,
    retry: NEVER,
    next: 'degrade',
    action:
      "use another dataset; the API's openapi.json describes this one in a form this server cannot read (the hint says why): report it to the API's provider",
    tags: ['document'],
    message: "The API's document describes this dataset in a form this server cannot read, so no request is sent for it.",
  },
  CONFIG_INVALID: {
    status: null,
    recoverable: false,
    retry: NEVER,
    next: 'check_configuration',
    action: 'fix the server configuration',
    tags: ['configuration'],
    message: 'The server is not configured to reach the API.',
  },
  NOT_READY: {
    status: 202,
    recoverable: true,
    retry: { kind: 'poll', floorMs: 1000, maxDelayMs: 4000 },
    action: 'the data is being built; retry after retry_after_seconds',
    tags: ['availability'],
    message: 'The API is still building this dataset (on-demand materialization).',
  },
} as const satisfies Record<string, ErrorRow>;

export type ApiErrorCode = keyof typeof API_ERROR_CODES;
export type ClientErrorCode = keyof typeof CLIENT_ERROR_CODES;
export type ErrorCode = ApiErrorCode | ClientErrorCode;

export const ERROR_TABLE: Readonly<Record<ErrorCode, ErrorRow>> = { ...API_ERROR_CODES, ...CLIENT_ERROR_CODES };

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_TABLE, value);
}

/**
 * The row that governs an answer with no known code: by status. An unlisted 4xx is the
 * request's fault and never retried; an unlisted 5xx is the server's and retried.
 */
export function codeForStatus(status: number): ErrorCode {
  for (const [code, row] of Object.entries(ERROR_TABLE) as [ErrorCode, ErrorRow][]) if (row.forStatus?.includes(status)) return code;
  return status >= 500 ? 'INTERNAL_ERROR' : 'UPSTREAM_REFUSED';
}

/** What the agent should do next for an error governed by `code`. */
export function nextActionFor(code: ErrorCode, recoverable: boolean, retryAfterSeconds: number | undefined): NextAction {
  const fixed = ERROR_TABLE[code].next;
  if (fixed) return fixed;
  if (recoverable) return retryAfterSeconds !== undefined ? 'retry_after_wait' : 'retry_later';
  return 'do_not_retry';
}
