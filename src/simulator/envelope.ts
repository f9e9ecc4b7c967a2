/** Error envelopes exactly as the spec's Resources section draws them. */
import { API_ERROR_CODES, type ApiErrorCode } from '../catalog/index.js';

const TAGS: Record<ApiErrorCode, string[]> = {
  AUTH_MISSING: ['auth'],
  AUTH_INVALID: ['auth'],
  AUTH_PAUSED: ['auth', 'billing'],
  SCOPE_INSUFFICIENT: ['auth', 'scope'],
  KEY_LIMIT_REACHED: ['keys'],
  VALIDATION_ERROR: ['validation'],
  TICKER_INVALID: ['validation', 'ticker'],
  CONTRACT_SYMBOL_INVALID: ['validation', 'contract'],
  INDEX_UNSUPPORTED: ['validation', 'ticker'],
  RANGE_TOO_DEEP: ['range'],
  RESPONSE_TOO_LARGE: ['size'],
  NOT_FOUND: ['catalog'],
  READ_MODEL_UNAVAILABLE: ['availability'],
  SERVICE_DISABLED: ['availability'],
  RATE_LIMITED: ['limits', 'rate'],
  QUOTA_EXHAUSTED: ['limits', 'quota'],
  IN_FLIGHT_EXCEEDED: ['limits', 'concurrency'],
  CIRCUIT_OPEN: ['limits', 'circuit'],
  UPSTREAM_ERROR: ['upstream'],
  UPSTREAM_TIMEOUT: ['upstream'],
  INTERNAL_ERROR: ['internal'],
};

const DEFAULT_MESSAGES: Record<ApiErrorCode, string> = {
  AUTH_MISSING: 'No Authorization header was sent.',
  AUTH_INVALID: 'The API key is invalid or revoked.',
  AUTH_PAUSED: 'The subscription has lapsed; API access is paused.',
  SCOPE_INSUFFICIENT: 'The API key lacks the scope this endpoint needs.',
  KEY_LIMIT_REACHED: 'The account already holds 5 active keys.',
  VALIDATION_ERROR: 'A query parameter is invalid.',
  TICKER_INVALID: 'The ticker fails this endpoint’s pattern.',
  CONTRACT_SYMBOL_INVALID: 'The option contract symbol is not in OSI format.',
  INDEX_UNSUPPORTED: 'Index underlyings are not supported by this endpoint.',
  RANGE_TOO_DEEP: 'The requested history reaches before the retention window.',
  RESPONSE_TOO_LARGE: 'The response would exceed the size ceiling.',
  NOT_FOUND: 'Not in the service catalogue.',
  READ_MODEL_UNAVAILABLE: 'The data is not available right now.',
  SERVICE_DISABLED: 'This capability is disabled for now.',
  RATE_LIMITED: 'Too many requests in this minute.',
  QUOTA_EXHAUSTED: 'The monthly quota is used up.',
  IN_FLIGHT_EXCEEDED: 'Too many requests in flight.',
  CIRCUIT_OPEN: 'The server-side circuit breaker is open.',
  UPSTREAM_ERROR: 'A data-path failure could not be served from an older value.',
  UPSTREAM_TIMEOUT: 'The data path timed out.',
  INTERNAL_ERROR: 'Unexpected server error.',
};

export interface EnvelopeInput {
  code: ApiErrorCode;
  requestId: string | null;
  docsBase: string;
  message?: string;
  hint?: string;
  retryAfterSeconds?: number;
}

export interface ErrorEnvelope {
  error: {
    code: ApiErrorCode;
    tags: string[];
    message: string;
    docs_url: string;
    request_id: string | null;
    hint?: string;
    recoverable?: true;
    retry_after_seconds?: number;
  };
}

export function errorEnvelope(input: EnvelopeInput): ErrorEnvelope {
  const spec = API_ERROR_CODES[input.code];
  const error: ErrorEnvelope['error'] = {
    code: input.code,
    tags: TAGS[input.code],
    message: input.message ?? DEFAULT_MESSAGES[input.code],
    docs_url: `${input.docsBase}#${input.code}`,
    request_id: input.requestId,
  };
  if (input.hint !== undefined) error.hint = input.hint;
  // Only recoverable errors carry these two fields (SERVICE_DISABLED carries neither).
  if (spec.recoverable) {
    error.recoverable = true;
    error.retry_after_seconds = input.retryAfterSeconds ?? 1;
  }
  return { error };
}
