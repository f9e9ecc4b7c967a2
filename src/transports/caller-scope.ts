/**
 * Cancellation for --http callers who hang up. The SDK aborts a tool call when the web
 * Request's signal fires, but that Request is a clone whose signal, on Node 20, stops
 * firing once the original is garbage-collected: a caller that had gone was still queued
 * and sent upstream (a charged answer nobody received). Here the Node request and
 * response themselves say when the caller went, and every call made while handling that
 * request sees the signal through async context, whatever the SDK does with its Request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../api/errors.js';

const scope = new AsyncLocalStorage<AbortSignal>();
/** The callers whose requests are being handled now. */
const connected = new Set<AbortController>();

/**
 * At the end of a shutdown's grace: every call still running ends now with a structured,
 * recoverable error its caller receives, rather than a dropped connection.
 */
export function endCallsForShutdown(): void {
  const reason = new ApiError({
    code: 'CANCELLED',
    status: null,
    message: 'The server is shutting down and stopped this call before the API answered.',
    hint: 'Call again: another instance, or this one once it is back, will answer.',
    recoverable: true,
    local: true,
  });
  for (const caller of connected) caller.abort(reason);
}

/** The signal of the HTTP caller whose request is being handled, if any (stdio has none). */
export function callerSignal(): AbortSignal | undefined {
  return scope.getStore();
}

/**
 * Runs `handle` for one HTTP request, with a signal that aborts when the caller goes: its
 * side of the connection ended (node:http then cannot answer it) or the connection closed
 * before the response was fully written.
 */
export function whileCallerConnected<T>(req: IncomingMessage, res: ServerResponse, handle: () => T): T {
  const gone = new AbortController();
  const leave = (): void => gone.abort(new Error('the HTTP caller disconnected'));
  const socket = req.socket;
  socket.once('end', leave);
  connected.add(gone);
  res.once('close', () => {
    connected.delete(gone);
    socket.off('end', leave);
    if (!res.writableFinished) leave();
  });
  return scope.run(gone.signal, handle);
}
