/**
 * Long-lived streams a caller keeps open to hear of changes (tools/list_changed):
 *
 * - 2025-11-25 clients open `GET /mcp` as an event stream once initialized. The SDK's
 *   stateless serving answers that GET with 405, so such clients (the SDK's own client over
 *   HTTP negotiates 2025-11-25) never heard of a change: the stream is served here instead.
 * - 2026-07-28 clients send `subscriptions/listen` (the SDK serves it); here it is only
 *   counted, by its `Mcp-Method` header (the SDK refuses a header that disagrees with the body).
 *
 * Each member may hold a few at once: one member's streams (a leak, a loop reconnecting)
 * otherwise filled the node's connections and locked everyone else out.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Streams one member may hold open at once on a node: a host opens one per connected client. */
export const LISTEN_STREAMS_PER_MEMBER = 8;
/** Comment frames keep idle streams alive through proxies (HAProxy's client and server timeouts are 65 s). */
const KEEP_ALIVE_MS = 15_000;

const TOOLS_CHANGED = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`;

export interface ListenStreamsOptions {
  perMember?: number;
  keepAliveMs?: number;
}

export class ListenStreams {
  private readonly perMember: number;
  private readonly keepAliveMs: number;
  private readonly open = new Map<string, number>();
  /** The 2025-era event streams this node serves, to write notifications to. */
  private readonly legacy = new Set<ServerResponse>();

  constructor(options: ListenStreamsOptions = {}) {
    this.perMember = options.perMember ?? LISTEN_STREAMS_PER_MEMBER;
    this.keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
  }

  /** Whether this request opens a 2025-era event stream (GET with text/event-stream accepted). */
  static isLegacyListen(req: IncomingMessage): boolean {
    return req.method === 'GET' && (req.headers.accept ?? '').toLowerCase().includes('text/event-stream');
  }

  /** Whether this request is a 2026-07-28 `subscriptions/listen`. */
  static isListen(req: IncomingMessage): boolean {
    return req.method === 'POST' && req.headers['mcp-method'] === 'subscriptions/listen';
  }

  /**
   * Counts a stream of `member` for as long as its response is open; false (and the
   * refusal written) when the member already holds as many as allowed.
   */
  admit(member: string, res: ServerResponse): boolean {
    const held = this.open.get(member) ?? 0;
    if (held >= this.perMember) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32000,
            message: `Too many listening streams: you hold ${held} on this server, the most one member may. Close one (each MCP client needs one at most).`,
          },
        }),
      );
      return false;
    }
    this.open.set(member, held + 1);
    res.once('close', () => {
      const now = (this.open.get(member) ?? 1) - 1;
      if (now > 0) this.open.set(member, now);
      else this.open.delete(member);
    });
    return true;
  }

  /** Serves a 2025-era event stream: open until the caller leaves or the server stops. */
  serveLegacy(member: string, res: ServerResponse): void {
    if (!this.admit(member, res)) return;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
    res.write(': listening for list changes\n\n');
    this.legacy.add(res);
    const alive = setInterval(() => res.write(': keep-alive\n\n'), this.keepAliveMs);
    alive.unref();
    res.once('close', () => {
      clearInterval(alive);
      this.legacy.delete(res);
    });
  }

  /** Tells every 2025-era stream that the tool list changed (2026 streams hear it from the SDK). */
  toolsChanged(): void {
    for (const res of this.legacy) res.write(TOOLS_CHANGED);
  }

  /** At shutdown: the 2025-era streams end, so that draining does not wait for them. */
  endAll(): void {
    for (const res of this.legacy) res.end();
  }
}
