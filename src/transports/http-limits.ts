/**
 * What one HTTP client may cost the server before it has proved who it is: a refused
 * request's body is not read (node:http would otherwise drain it to reuse the connection,
 * 64 MB and more), and the server holds a bounded number of connections.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export const HTTP_MAX_CONNECTIONS_ENV = 'MARKET_DATA_HTTP_MAX_CONNECTIONS';
/** Enough for a team's agents and their streams; a flood beyond it is refused at accept. */
export const DEFAULT_MAX_CONNECTIONS = 256;

/** The connection cap from the environment (a positive integer), or the default. */
export function maxConnections(env: NodeJS.ProcessEnv): number {
  const value = Number(env[HTTP_MAX_CONNECTIONS_ENV]);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_MAX_CONNECTIONS;
}

export function limitConnections(server: Server, max: number): void {
  server.maxConnections = max;
}

/**
 * Until a request is admitted, whatever is answered is a refusal, and its connection is
 * closed after it (closeAfterRefusal): the answer must say `Connection: close`. One that
 * said keep-alive and then closed left a dead connection in the pool of whoever reuses
 * connections (HAProxy's to the node, an HTTP client's to the server), whose next
 * request on it failed: "other side closed", or a 502 from the proxy. Call the returned
 * function once the request is admitted: its own answer keeps the connection as before.
 */
export function refusalsClose(res: ServerResponse): () => void {
  const keepAlive = res.shouldKeepAlive;
  res.shouldKeepAlive = false;
  return () => {
    res.shouldKeepAlive = keepAlive;
  };
}

/**
 * After a refusal (401, a bad Host or Origin): the connection closes once the answer is
 * written, and the unread body is never read.
 */
export function closeAfterRefusal(req: IncomingMessage, res: ServerResponse): void {
  res.shouldKeepAlive = false;
  const close = (): void => req.socket.destroySoon();
  if (res.writableFinished) close();
  else res.once('finish', close);
}
