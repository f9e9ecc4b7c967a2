/**
 * The one error type of the client. Upstream envelopes keep their code; bodies that are
 * not envelopes map by status to the spec's codes; failures on this side of the wire
 * get codes of their own. Never a raw stack, never the key.
 */
import { API_ERROR_CODES, isApiErrorCode, type ApiErrorCode } from '../catalog/index.js';
import { sanitizeText } from '../sanitize.js';

export const CLIENT_ERROR_CODES = {
  NETWORK_ERROR: { recoverable: true, action: 'retry later; check the network and MARKET_DATA_BASE_URL' },
  DEADLINE_EXCEEDED: { recoverable: true, action: 'retry; the call ran out of time' },
  RESPONSE_INVALID: { recoverable: true, action: 'retry later; the API answered something that is not the expected JSON' },
  RESPONSE_TOO_LARGE_LOCAL: {
    recoverable: false,
    action: 'narrow the request (limit, range, format=summary) or raise MARKET_DATA_MAX_RESPONSE_BYTES',
  },
  CANCELLED: { recoverable: false, action: 'the caller cancelled the request' },
  CONFIG_INVALID: { recoverable: false, action: 'fix the server configuration' },
  NOT_READY: { recoverable: true, action: 'the data is being built; retry after retry_after_seconds' },
} as const;

export type ClientErrorCode = keyof typeof CLIENT_ERROR_CODES;
export type ErrorCode = ApiErrorCode | ClientErrorCode;

export interface ApiErrorInit {
  code: ErrorCode;
  status: number | null;
  message: string;
  hint?: string | undefined;
  recoverable?: boolean | undefined;
  retryAfterSeconds?: number | undefined;
  docsUrl?: string | undefined;
  requestId?: string | null | undefined;
  tags?: readonly string[] | undefined;
  /** True when the error was decided here without a request (latch, memory, validation). */
  local?: boolean | undefined;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number | null;
  readonly hint: string | undefined;
  readonly recoverable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly docsUrl: string | undefined;
  readonly requestId: string | null;
  readonly tags: readonly string[];
  readonly local: boolean;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.name = 'ApiError';
    this.code = init.code;
    this.status = init.status;
    this.hint = init.hint;
    this.recoverable = init.recoverable ?? defaultRecoverable(init.code);
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.docsUrl = init.docsUrl;
    this.requestId = init.requestId ?? null;
    this.tags = init.tags ?? [];
    this.local = init.local ?? false;
  }

  /** What the code asks the caller to do, from the spec's table or the client's own. */
  get action(): string {
    return isApiErrorCode(this.code) ? API_ERROR_CODES[this.code].action : CLIENT_ERROR_CODES[this.code].action;
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      status: this.status,
      message: this.message,
      hint: this.hint ?? null,
      recoverable: this.recoverable,
      retry_after_seconds: this.retryAfterSeconds ?? null,
      docs_url: this.docsUrl ?? null,
      request_id: this.requestId,
    };
  }
}

function defaultRecoverable(code: ErrorCode): boolean {
  return isApiErrorCode(code) ? API_ERROR_CODES[code].recoverable : CLIENT_ERROR_CODES[code].recoverable;
}

interface EnvelopeShape {
  error: {
    code: unknown;
    message?: unknown;
    hint?: unknown;
    docs_url?: unknown;
    request_id?: unknown;
    tags?: unknown;
    recoverable?: unknown;
    retry_after_seconds?: unknown;
  };
}

function isEnvelope(body: unknown): body is EnvelopeShape {
  return (
    typeof body === 'object' &&
    body !== null &&
    'error' in body &&
    typeof (body as EnvelopeShape).error === 'object' &&
    (body as EnvelopeShape).error !== null
  );
}

/** What a status means when the body is not an envelope (an HTML proxy page, an empty 503). */
export function codeForStatus(status: number): ApiErrorCode {
  if (status === 401) return 'AUTH_INVALID';
  if (status === 402) return 'AUTH_PAUSED';
  if (status === 403) return 'SCOPE_INSUFFICIENT';
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'KEY_LIMIT_REACHED';
  if (status === 422 || status === 400) return 'VALIDATION_ERROR';
  if (status === 429) return 'RATE_LIMITED';
  if (status === 502) return 'UPSTREAM_ERROR';
  if (status === 503) return 'READ_MODEL_UNAVAILABLE';
  if (status === 504) return 'UPSTREAM_TIMEOUT';
  return 'INTERNAL_ERROR';
}

/** Builds the error for a non-2xx answer. `retryAfterHeader` is the `Retry-After` value. */
export function errorFromResponse(
  status: number,
  body: unknown,
  retryAfterHeader: number | undefined,
  headerRequestId: string | undefined,
): ApiError {
  if (isEnvelope(body) && isApiErrorCode(body.error.code)) {
    const e = body.error;
    const code = body.error.code;
    const retryAfter = typeof e.retry_after_seconds === 'number' ? e.retry_after_seconds : retryAfterHeader;
    return new ApiError({
      code,
      status,
      message: typeof e.message === 'string' ? sanitizeText(e.message, 500) : code,
      hint: typeof e.hint === 'string' ? sanitizeText(e.hint, 500) : undefined,
      recoverable: e.recoverable === true || API_ERROR_CODES[code].recoverable,
      retryAfterSeconds: retryAfter,
      docsUrl: typeof e.docs_url === 'string' ? sanitizeText(e.docs_url, 300) : undefined,
      requestId: typeof e.request_id === 'string' ? sanitizeText(e.request_id, 100) : (headerRequestId ?? null),
      tags: Array.isArray(e.tags) ? e.tags.filter((t): t is string => typeof t === 'string').map((t) => sanitizeText(t, 50)) : [],
    });
  }
  const code = codeForStatus(status);
  return new ApiError({
    code,
    status,
    message: `The API answered ${status} without an error envelope.`,
    hint: 'The response came from something in front of the API (a proxy or load balancer); retry later.',
    recoverable: API_ERROR_CODES[code].recoverable,
    retryAfterSeconds: retryAfterHeader,
    requestId: headerRequestId ?? null,
  });
}

/** The error for a call whose signal fired: the caller cancelled, or the deadline passed. */
export function abortError(signal: AbortSignal): ApiError {
  const reason: unknown = signal.reason;
  if (reason instanceof ApiError) return reason;
  return new ApiError({ code: 'CANCELLED', status: null, message: 'The call was cancelled before it finished.', local: true });
}
