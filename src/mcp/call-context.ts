/**
 * The context of one call, made where our code first meets it: from what the SDK hands
 * the handler (its cancellation, and over --http the caller and the request's end the
 * transport put in the request's AuthInfo: request-origin.ts). The tool hands it on to
 * the client, the client to the account gate.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { ProgressEvent } from '../api/client.js';
import { newCallContext, type CallContext } from '../api/call-context.js';
import { callerOf, requestEndOf } from './request-origin.js';

/** What a tool or resource call brings: `deadlineMs` from now to answer in. */
export function callContextOf(ctx: ServerContext, deadlineMs: number, now: number = Date.now()): CallContext {
  const origin = ctx.http?.authInfo;
  return newCallContext({
    caller: callerOf(origin),
    // The SDK's signal (notifications/cancelled, the web request's end) and, over --http, the
    // request's end as node:http saw it: on Node 20 the SDK's copy of it can stop firing.
    signals: [ctx.mcpReq.signal, requestEndOf(origin)],
    deadline: now + deadlineMs,
  });
}

/** Progress notifications while a call waits (queue, 202, Retry-After), when the client asked for them. */
export function progressReporter(ctx: ServerContext): ((event: ProgressEvent) => void) | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  let progress = 0;
  return (event) => {
    progress += 1;
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress, message: event.message } })
      .catch(() => undefined);
  };
}
