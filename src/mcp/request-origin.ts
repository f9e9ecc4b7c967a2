/**
 * What the HTTP transport knows of a request that the SDK does not: the caller its front
 * door admitted, and the signal of the request's end (its caller hung up, or the server is
 * shutting down). Both ride in the request's AuthInfo, the one part of what the SDK hands
 * a server factory (`authInfo`) and a tool (`ctx.http.authInfo`) that a transport fills;
 * stdio fills none, and its calls have no caller.
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Caller } from '../auth/caller.js';

/** The key, in AuthInfo.extra, of the request's end. */
const REQUEST_END = 'request_end';

/** The AuthInfo handed to the SDK for an admitted request: the caller's, with the request's end beside it. */
export function requestOrigin(caller: Caller, authInfo: AuthInfo | undefined, ended: AbortSignal): AuthInfo {
  return {
    ...(authInfo ?? { token: '[verified]', scopes: [] }),
    clientId: caller.clientId,
    extra: { ...authInfo?.extra, subject: caller.subject, [REQUEST_END]: ended },
  };
}

function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** The caller the HTTP guard admitted (src/auth/http-guard.ts); undefined over stdio. */
export function callerOf(authInfo: AuthInfo | undefined): Caller | undefined {
  const subject = fieldOf(authInfo?.extra, 'subject');
  const clientId = authInfo?.clientId;
  return typeof subject === 'string' && typeof clientId === 'string' ? { subject, clientId } : undefined;
}

/** The signal of the request's end, when the transport put one there. */
export function requestEndOf(authInfo: AuthInfo | undefined): AbortSignal | undefined {
  const ended = fieldOf(authInfo?.extra, REQUEST_END);
  return ended instanceof AbortSignal ? ended : undefined;
}
