/**
 * The spec's error table, once. The simulator answers with it, the client classifies
 * with it, and the MCP layer turns it into guidance for the agent.
 */
export const API_ERROR_CODES = {
  AUTH_MISSING: { status: 401, recoverable: false, action: 'send the bearer key' },
  AUTH_INVALID: { status: 401, recoverable: false, action: 'check or regenerate the API key' },
  AUTH_PAUSED: { status: 402, recoverable: false, action: 'restore the subscription; the same key resumes' },
  SCOPE_INSUFFICIENT: { status: 403, recoverable: false, action: 'consult GET /v1/discover for the key scope' },
  KEY_LIMIT_REACHED: { status: 409, recoverable: false, action: 'revoke one key' },
  VALIDATION_ERROR: { status: 400, recoverable: false, action: 'fix the parameter named in the hint' },
  TICKER_INVALID: { status: 400, recoverable: false, action: 'fix the ticker spelling' },
  CONTRACT_SYMBOL_INVALID: { status: 400, recoverable: false, action: 'fix the OSI contract symbol' },
  INDEX_UNSUPPORTED: { status: 422, recoverable: false, action: 'use a supported, non-index symbol' },
  RANGE_TOO_DEEP: { status: 404, recoverable: false, action: 'move `from` inside the retention window' },
  RESPONSE_TOO_LARGE: { status: 422, recoverable: false, action: 'lower `limit`, shorten the range, or use format=summary' },
  NOT_FOUND: { status: 404, recoverable: false, action: 'do not retry' },
  READ_MODEL_UNAVAILABLE: { status: 503, recoverable: true, action: 'retry after retry_after_seconds' },
  SERVICE_DISABLED: { status: 503, recoverable: false, action: 'degrade; retry at low frequency' },
  RATE_LIMITED: { status: 429, recoverable: true, action: 'wait Retry-After' },
  QUOTA_EXHAUSTED: { status: 429, recoverable: true, action: 'wait for the monthly reset (X-Quota-Reset-At)' },
  IN_FLIGHT_EXCEEDED: { status: 429, recoverable: true, action: 'lower concurrency' },
  CIRCUIT_OPEN: { status: 429, recoverable: true, action: 'back off per Retry-After' },
  UPSTREAM_ERROR: { status: 502, recoverable: true, action: 'retry later' },
  UPSTREAM_TIMEOUT: { status: 504, recoverable: true, action: 'retry later' },
  INTERNAL_ERROR: { status: 500, recoverable: true, action: 'retry later; report request_id' },
} as const satisfies Record<string, { status: number; recoverable: boolean; action: string }>;

export type ApiErrorCode = keyof typeof API_ERROR_CODES;

export function isApiErrorCode(value: unknown): value is ApiErrorCode {
  return typeof value === 'string' && Object.hasOwn(API_ERROR_CODES, value);
}
