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
import { ApiError, type ErrorCode } from '../api/errors.js';
import type { ParamRefusal } from '../catalog/index.js';
import type { Logger } from '../log.js';

/** What the agent should do, by code. Anything not listed: do not retry as is. */
export type NextAction =
  'retry_after_wait' | 'fix_input' | 'check_configuration' | 'wait_for_quota_reset' | 'degrade' | 'retry_later' | 'do_not_retry';

const ACTIONS: Partial<Record<ErrorCode, NextAction>> = {
  VALIDATION_ERROR: 'fix_input',
  TICKER_INVALID: 'fix_input',
  CONTRACT_SYMBOL_INVALID: 'fix_input',
  RANGE_TOO_DEEP: 'fix_input',
  RESPONSE_TOO_LARGE: 'fix_input',
  RESPONSE_TOO_LARGE_LOCAL: 'fix_input',
  INDEX_UNSUPPORTED: 'fix_input',
  AUTH_MISSING: 'check_configuration',
  AUTH_INVALID: 'check_configuration',
  AUTH_PAUSED: 'check_configuration',
  SCOPE_INSUFFICIENT: 'check_configuration',
  CONFIG_INVALID: 'check_configuration',
  KEY_LIMIT_REACHED: 'check_configuration',
  QUOTA_EXHAUSTED: 'wait_for_quota_reset',
  SERVICE_DISABLED: 'degrade',
  NOT_FOUND: 'do_not_retry',
  CANCELLED: 'do_not_retry',
};

export function nextAction(error: ApiError): NextAction {
  const listed = ACTIONS[error.code];
  if (listed) return listed;
  if (error.recoverable) return error.retryAfterSeconds !== undefined ? 'retry_after_wait' : 'retry_later';
  return 'do_not_retry';
}

function guidance(error: ApiError, action: NextAction): string {
  const hint = error.hint ? ` ${error.hint}` : '';
  const wait = error.retryAfterSeconds;
  switch (action) {
    case 'fix_input':
      // Refusals here and upstream 4xx cost nothing; a check made after a 200 cannot say so.
      return `${error.code}: ${error.message}${hint} Fix the arguments (${error.action}) and call again${error.status === null && !error.local ? '.' : '; nothing was charged.'}`;
    case 'check_configuration':
      return `${error.code}: ${error.message}${hint} Retrying will not help; call api_status to check the key and its scope, or tell the user.`;
    case 'wait_for_quota_reset':
      return `${error.code}: ${error.message}${hint} Do not retry before the reset${wait ? ` (in about ${wait} s)` : ''}; api_status shows the budget.`;
    case 'degrade':
      return `${error.code}: ${error.message}${hint} Continue without this dataset and try it again much later.`;
    case 'retry_after_wait':
      return `${error.code}: ${error.message}${hint} Wait ${wait ?? 1} s, then call again with the same arguments.`;
    case 'retry_later':
      return `${error.code}: ${error.message}${hint} Call again later with the same arguments.`;
    case 'do_not_retry':
      return `${error.code}: ${error.message}${hint} Do not retry this request as is.`;
  }
}

export interface ErrorResultOptions {
  /** False for a tool that declares an outputSchema: the error then travels only as text. */
  structured: boolean;
}

export function errorResult(error: ApiError, options: ErrorResultOptions = { structured: true }): CallToolResult {
  const action = nextAction(error);
  const payload = { error: { ...error.toJSON(), action } };
  return {
    isError: true,
    content: [{ type: 'text', text: `${guidance(error, action)}\n${JSON.stringify(payload)}` }],
    ...(options.structured ? { structuredContent: payload } : {}),
  };
}

/** Input refused before any request: the API's own code, status 400, no request id. */
export function refusalError(refusal: ParamRefusal): ApiError {
  return new ApiError({ code: refusal.code, status: 400, message: refusal.message, hint: refusal.hint, local: true });
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
  return new ApiError({
    code: 'INTERNAL_ERROR',
    status: null,
    message: 'The server failed while handling this call (a fault in market-data-mcp, not in the arguments).',
    hint: 'Do not retry as is; tell the user, who can report it with the server log (stderr).',
    recoverable: false,
    local: true,
  });
}
