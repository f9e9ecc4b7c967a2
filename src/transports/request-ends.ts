/**
 * Cancellation for --http callers who hang up. The SDK aborts a tool call when the web
 * Request's signal fires, but that Request is a clone whose signal, on Node 20, stops
 * firing once the original is garbage-collected: a caller that had gone was still queued
 * and sent upstream (a charged answer nobody received). Here the Node request and
 * response themselves say when the caller went; the signal goes with the request to its
 * calls (in its AuthInfo: src/mcp/request-origin.ts), whatever the SDK does with its Request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cancelledError } from '../api/errors.js';

/** The requests one HTTP server is handling now, each with the signal of its end. */
export class RequestEnds {
  private readonly open = new Set<AbortController>();

  /**
   * A signal that aborts when the caller of this request goes: its side of the connection
   * ended (node:http then cannot answer it) or the connection closed before the response
   * was fully written.
   */
  watch(req: IncomingMessage, res: ServerResponse): AbortSignal {
    const gone = new AbortController();
    const leave = (): void => gone.abort(new Error('the HTTP caller disconnected'));
    const socket = req.socket;
    socket.once('end', leave);
    this.open.add(gone);
    res.once('close', () => {
      this.open.delete(gone);
      socket.off('end', leave);
      if (!res.writableFinished) leave();
    });
    return gone.signal;
  }

  /**
   * At the end of a shutdown's grace: every call still running ends now with a structured,
   * recoverable error its caller receives, rather than a dropped connection.
   */
  endForShutdown(): void {
    const reason = cancelledError('shutdown');
    for (const request of this.open) request.abort(reason);
  }
}
