/** Error envelopes exactly as the spec's Resources section draws them; tags and default text come from the error table. */
import { API_ERROR_CODES, type ApiErrorCode, type ErrorEnvelope } from '../catalog/index.js';

export interface EnvelopeInput {
  code: ApiErrorCode;
  requestId: string | null;
  docsBase: string;
  message?: string;
  hint?: string;
  retryAfterSeconds?: number;
}

export function errorEnvelope(input: EnvelopeInput): ErrorEnvelope {
  const spec = API_ERROR_CODES[input.code];
  const error: ErrorEnvelope['error'] = {
    code: input.code,
    tags: [...spec.tags],
    message: input.message ?? spec.message,
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
