/**
 * The context of one call, made where our code first meets it: from what the SDK hands
 * the handler (its cancellation, and over --http the caller and the request's end the
 * transport put in the request's AuthInfo: request-origin.ts). The tool hands it on to
 * the client, the client to the account gate.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
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
