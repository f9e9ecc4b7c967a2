/**
 * Every failure becomes a tool result an agent can act on: `isError: true`, one short
 * paragraph saying what to do next, and the error itself as one line of JSON.
 *
 * The JSON rides in the text because the text is what reaches the model in most
 * clients: LangChain's mcp-adapters throw the joined text of an error result, the AI
 * SDK hands the model only `content`. `structuredContent` is added only where the tool
 * declares no outputSchema: an error object there would not match a declared schema,
 * and the v1 SDK client, the Inspector, LangChain, Mastra and Gemini CLI then reject the
 * whole result (-32602) so the error never reaches the agent.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ApiError, apiError } from '../../api/errors.js';
import { nextActionFor, type NextAction, type ParamRefusal } from '../../catalog/index.js';
import type { Logger } from '../../log.js';
import { docsUrlOf } from './error-docs.js';
import { guidanceFor } from './guidance.js';

/** What the agent should do, by code: the error table's column. */
export type { NextAction };

export function nextAction(error: ApiError): NextAction {
  const next = nextActionFor(error.kind, error.recoverable, error.retryAfterSeconds);
  // A call the server stopped (a shutdown's CANCELLED) is safe to make again: the table's
  // "do not retry" is for a caller who cancelled, and an error must not say both.
  if (next === 'do_not_retry' && error.recoverable) return error.retryAfterSeconds !== undefined ? 'retry_after_wait' : 'retry_later';
  return next;
}

export interface ErrorResultOptions {
  /** False for a tool that declares an outputSchema: the error then travels only as text. */
  structured: boolean;
}

export function errorResult(error: ApiError, options: ErrorResultOptions = { structured: true }): CallToolResult {
  const action = nextAction(error);
  const payload = { error: { ...error.toJSON(), docs_url: docsUrlOf(error), action } };
  return {
    isError: true,
    content: [{ type: 'text', text: `${guidanceFor(error, action)}\n${JSON.stringify(payload)}` }],
    ...(options.structured ? { structuredContent: payload } : {}),
  };
}

/**
 * Input refused before any request: the API's own code, status 400 (whatever the API would
 * answer it with: nothing was sent), no request id; `kind` the row that says what to do.
 */
export function refusalError(refusal: ParamRefusal): ApiError {
  return apiError(refusal.kind ?? refusal.code, {
    code: refusal.code,
    status: 400,
    message: refusal.message,
    hint: refusal.hint,
    local: true,
  });
}

/** Arguments of a tool's own (not a dataset's parameters) refused before any request, with what would be accepted. */
export function invalidArguments(message: string, hint: string): ApiError {
  return apiError('VALIDATION_ERROR', { message, hint, local: true });
}

/** A dataset the API's document describes in a form this server cannot read: nothing is sent on our guesses. */
export function unreadableOperation(problem: string): ApiError {
  return apiError('OPERATION_UNREADABLE', { hint: `The document's problem: ${problem}.`, local: true });
}

/**
 * Anything that is not an ApiError is a bug of ours: logged with its stack (when a log is
 * given) and answered as a non-recoverable INTERNAL_ERROR, since the same call would fail
 * the same way again.
 */
export function asApiError(error: unknown, log?: Logger, tool?: string): ApiError {
  if (error instanceof ApiError) return error;
  // pino's err serializer writes type, message and stack.
  log?.error({ tool, err: error instanceof Error ? error : new Error(String(error)) }, 'tool handler failed: a bug in market-data-mcp');
  return apiError('INTERNAL_ERROR', {
    status: null,
    message: 'The server failed while handling this call (a fault in market-data-mcp, not in the arguments).',
    hint: 'Do not retry as is; tell the user, who can report it with the server log (stderr).',
    recoverable: false,
    local: true,
  });
}
