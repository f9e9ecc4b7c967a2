/**
 * What one HTTP client may cost the server before it has proved who it is: a refused
 * request's body is not read (node:http would otherwise drain it to reuse the connection,
 * 64 MB and more), and the server holds a bounded number of connections, of which slow and
 * unauthenticated ones only ever hold a small part.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listeningTime, type ListeningTime } from './listening-time.js';

/** Sending its request's headers takes a client this long at most; Node's default (60 s) let slow clients hold connections for a minute each. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** A connection that has sent no request for this long is a slow one: the first to go when room is needed. */
const SLOW_AFTER_MS = 1000;
/** How often Node looks for connections past their header timeout (its default, 30 s, tripled the timeout). */
const CHECK_EVERY_MS = 1000;

/** Options for createServer: the header and request timeouts, checked every second. */
export function connectionTimeouts(): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: 3 * HEADERS_TIMEOUT_MS, connectionsCheckingInterval: CHECK_EVERY_MS };
}

/**
 * At most `max` connections, without a lockout: connections that have sent no request yet
 * (unauthenticated and slow: a client sending its headers a byte at a time) get a budget of
 * their own, a small part of the cap. Once over that budget, or when the cap is reached, the
 * one that has waited longest without sending a request (over a second) is closed to make
 * room. 260 such sockets used to fill the 256 and refuse everyone (/healthz included) for as
 * long as they stayed; now they only ever hold the budget, and a new connection finds room.
 * A connection at the cap with nothing slow to close is refused at accept, as before.
 * Waiting is counted in the time the server could listen (listening-time.ts): a stalled
 * event loop makes no connection slow.
 */
export function limitConnections(server: Server, max: number, listening: ListeningTime = listeningTime()): void {
  server.once('close', () => listening.stop());
  const clock = (): number => listening.now();
  const slowBudget = Math.max(4, Math.floor(max / 8));
  /** Connections that have not sent a request yet, oldest first, with when they came. */
  const waiting = new Map<Socket, number>();
  let open = 0;
  const closeSlowest = (): boolean => {
    for (const [socket, since] of waiting) {
      if (clock() - since < SLOW_AFTER_MS) return false;
      waiting.delete(socket);
      socket.destroy();
      return true;
    }
    return false;
  };
  server.on('connection', (socket: Socket) => {
    open += 1;
    waiting.set(socket, clock());
    socket.once('close', () => {
      open -= 1;
      waiting.delete(socket);
    });
    let slow = 0;
    for (const since of waiting.values()) if (clock() - since >= SLOW_AFTER_MS) slow += 1;
    while (slow > slowBudget && closeSlowest()) slow -= 1;
    if (open > max && !closeSlowest()) {
      waiting.delete(socket);
      socket.destroy();
    }
  });
  server.on('request', (req: IncomingMessage) => waiting.delete(req.socket));
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
