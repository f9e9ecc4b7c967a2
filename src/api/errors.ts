/**
 * The one error type of the client. Upstream envelopes keep their code, known or not;
 * bodies that are not envelopes map by status through the error table, a JSON one keeping
 * what the API said (error-body.ts); failures on this side of the wire get codes of their own. Never a raw stack, never the key.
 */
import { codeForStatus, ERROR_TABLE, isErrorCode, receivedEnvelope, type ErrorCode } from '../catalog/index.js';
import { sanitizeText } from '../sanitize.js';
import { errorBodyMessage } from './error-body.js';
import { clampWaitSeconds } from './limit-headers.js';

export type { ErrorCode };

export interface ApiErrorInit {
  /** A code of the table, or an upstream code this client does not know (then `kind` says how to act). */
  code: string;
  /** The table row that governs this error; defaults to `code` when it is in the table. */
  kind?: ErrorCode | undefined;
  status: number | null;
  /** Defaults to the table's message for the code: a message is written once, there. */
  message?: string | undefined;
  hint?: string | undefined;
  recoverable?: boolean | undefined;
  retryAfterSeconds?: number | undefined;
  docsUrl?: string | undefined;
  requestId?: string | null | undefined;
  tags?: readonly string[] | undefined;
  /** True when the error was decided here without a request (latch, memory, validation). */
  local?: boolean | undefined;
  /** Whether the call cost a unit, where that is known and worth saying (a deadline after a 200). */
  charged?: boolean | undefined;
}

export class ApiError extends Error {
  /** The code the agent sees: the upstream's own, even one this client does not know. */
  readonly code: string;
  /** The row of the error table that decides retries and guidance. */
  readonly kind: ErrorCode;
  readonly status: number | null;
  readonly hint: string | undefined;
  readonly recoverable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly docsUrl: string | undefined;
  readonly requestId: string | null;
  readonly tags: readonly string[];
  readonly local: boolean;
  readonly charged: boolean | undefined;

  constructor(init: ApiErrorInit) {
    const kind = init.kind ?? (isErrorCode(init.code) ? init.code : codeForStatus(init.status ?? 500));
    super(init.message ?? ERROR_TABLE[kind].message);
    this.name = 'ApiError';
    this.code = init.code;
    this.kind = kind;
    this.status = init.status;
    this.hint = init.hint;
    this.recoverable = init.recoverable ?? ERROR_TABLE[this.kind].recoverable;
    this.retryAfterSeconds = init.retryAfterSeconds === undefined ? undefined : clampWaitSeconds(init.retryAfterSeconds);
    this.docsUrl = init.docsUrl;
    this.requestId = init.requestId ?? null;
    this.tags = init.tags ?? [];
    this.local = init.local ?? false;
    this.charged = init.charged;
  }

  /** This error with some of its parts changed: a copy, so an error already thrown or shared stays as it was. */
  with(changes: Partial<Omit<ApiErrorInit, 'code'>>): ApiError {
    return new ApiError({
      code: this.code,
      kind: this.kind,
      status: this.status,
      message: this.message,
      hint: this.hint,
      recoverable: this.recoverable,
      retryAfterSeconds: this.retryAfterSeconds,
      docsUrl: this.docsUrl,
      requestId: this.requestId,
      tags: this.tags,
      local: this.local,
      charged: this.charged,
      ...changes,
    });
  }

  /** What the code asks the caller to do, from the error table. */
  get action(): string {
    return ERROR_TABLE[this.kind].action;
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
      ...(this.charged === undefined ? {} : { charged: this.charged }),
    };
  }
}

export { codeForStatus };

/** What a call site says of an error beyond its code; the rest is the code's row of the error table. */
export type ApiErrorOverrides = Partial<Omit<ApiErrorInit, 'kind'>>;

/**
 * An error of this client, named by the row of the error table that governs it: its message,
 * status and `recoverable` are the row's unless the call site has better (a message naming
 * the parameter, a status the answer came with). `overrides.code` is for a code the agent
 * sees that the table has no row of its own for (a team's daily budget acts as the quota).
 * The constructor stays for the upstream's own envelopes, whose code may be one this client
 * does not know.
 */
export function apiError(code: ErrorCode, overrides: ApiErrorOverrides = {}): ApiError {
  const row = ERROR_TABLE[code];
  return new ApiError({
    ...overrides,
    code: overrides.code ?? code,
    kind: code,
    status: overrides.status === undefined ? row.status : overrides.status,
    message: overrides.message ?? row.message,
    recoverable: overrides.recoverable ?? row.recoverable,
  });
}

/** Builds the error for a non-2xx answer. `retryAfterHeader` is the `Retry-After` value. */
export function errorFromResponse(
  status: number,
  body: unknown,
  retryAfterHeader: number | undefined,
  headerRequestId: string | undefined,
): ApiError {
  const byStatus = codeForStatus(status);
  const envelope = receivedEnvelope.safeParse(body);
  if (envelope.success) {
    const e = envelope.data.error;
    const code = e.code;
    // A known code acts by its row; one this client does not know acts by its status (a 4xx is never retried).
    const kind: ErrorCode = isErrorCode(code) && ERROR_TABLE[code].status !== null ? code : byStatus;
    const retryAfter = clampWaitSeconds(e.retry_after_seconds) ?? retryAfterHeader;
    return new ApiError({
      code,
      kind,
      status,
      message: e.message === undefined ? code : sanitizeText(e.message, 500),
      hint: e.hint === undefined ? undefined : sanitizeText(e.hint, 500),
      recoverable: kind === code ? e.recoverable === true || ERROR_TABLE[kind].recoverable : ERROR_TABLE[kind].recoverable,
      retryAfterSeconds: retryAfter,
      docsUrl: e.docs_url === undefined ? undefined : sanitizeText(e.docs_url, 300),
      requestId: e.request_id === undefined ? (headerRequestId ?? null) : sanitizeText(e.request_id, 100),
      tags: e.tags.map((t) => sanitizeText(t, 50)),
    });
  }
  // A JSON body is the API's own answer in a form other than the spec's: what it said is the
  // message, and the hint is the status's (a proxy answers in HTML, or with no body at all).
  if (body !== undefined) return foreignError(status, body, retryAfterHeader, headerRequestId);
  return apiError(byStatus, {
    status,
    message: `The API answered ${status} without an error envelope.`,
    hint:
      status >= 500
        ? 'The response came from something in front of the API (a proxy or load balancer); retry later.'
        : 'The response came from something in front of the API (a proxy or load balancer); check MARKET_DATA_BASE_URL.',
    retryAfterSeconds: retryAfterHeader,
    requestId: headerRequestId ?? null,
  });
}

/** Longest text of the API's quoted in an error. */
const SAID_CHARS = 500;

/** The error for a JSON body that is not the envelope: the API's words, the code and hint of its status. */
function foreignError(status: number, body: unknown, retryAfterHeader: number | undefined, headerRequestId: string | undefined): ApiError {
  const kind = codeForStatus(status);
  const raw = errorBodyMessage(body);
  const said = raw === undefined ? undefined : sanitizeText(raw, SAID_CHARS);
  const message = said === undefined ? `The API answered ${status} with no message.` : `The API answered ${status}: ${said}`;
  // 400 and 422 ask for other arguments, in the API's words; any other status, the table's step for it.
  const fix = ERROR_TABLE[kind].next === 'fix_input';
  const action = fix ? 'fix the arguments' : ERROR_TABLE[kind].action;
  const step = `${action.charAt(0).toUpperCase()}${action.slice(1)}`;
  return apiError(kind, {
    status,
    message,
    hint: fix && said !== undefined ? `${step}: ${said}` : `${step}.`,
    retryAfterSeconds: retryAfterHeader,
    requestId: headerRequestId ?? null,
  });
}

/**
 * CANCELLED, written once: the caller left before the answer (the table's words), or the
 * server is shutting down, which stops a call that is safe to make again (tool-errors.ts
 * nextAction), whether it was still queued here or already waiting for the API.
 */
export function cancelledError(why: 'caller' | 'shutdown' = 'caller'): ApiError {
  if (why === 'caller') return apiError('CANCELLED', { local: true });
  return apiError('CANCELLED', {
    message: 'Stopped: the server is shutting down.',
    hint: 'Call again: another instance, or this one once back, will answer.',
    recoverable: true,
    local: true,
  });
}

/** The error for a call whose signal fired: the caller cancelled, or the deadline passed. */
export function abortError(signal: AbortSignal): ApiError {
  const reason: unknown = signal.reason;
  if (reason instanceof ApiError) return reason;
  return cancelledError();
}

/** QUOTA_EXHAUSTED decided here, by the quota latch, without a request (every gate says it alike). */
export function quotaLatchedError(resetAtMs: number, leftMs: number): ApiError {
  const resetAt = new Date(resetAtMs).toISOString();
  return apiError('QUOTA_EXHAUSTED', {
    message: `The account's monthly quota is used up until ${resetAt}.`,
    hint: `No request was sent. Calls resume after ${resetAt}; free tools such as api_status still work.`,
    retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)),
    local: true,
  });
}
