/**
 * Every failure becomes a tool result an agent can act on: `isError: true`, the error
 * as structured data, and one short paragraph saying what to do next.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ApiError } from '../api/errors.js';
import { guidanceFor, nextActionFor, type NextAction, type ParamRefusal } from '../catalog/index.js';

/** What the agent should do, by code: the error table's column. */
export type { NextAction };

export function nextAction(error: ApiError): NextAction {
  return nextActionFor(error.kind, error.recoverable, error.retryAfterSeconds);
}

export function errorResult(error: ApiError): CallToolResult {
  const action = nextAction(error);
  return {
    isError: true,
    content: [{ type: 'text', text: guidanceFor(error, action) }],
    structuredContent: { error: { ...error.toJSON(), action } },
  };
}

/** Input refused before any request: the API's own code, status 400, no request id. */
export function refusalError(refusal: ParamRefusal): ApiError {
  return new ApiError({ code: refusal.code, status: 400, message: refusal.message, hint: refusal.hint, local: true });
}

export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError({
    code: 'INTERNAL_ERROR',
    status: null,
    message: 'The server failed while handling this call.',
    hint: 'Retry later; if it persists, report it with the server log (stderr).',
  });
}
