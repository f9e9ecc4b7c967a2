/**
 * An audit line for every request that reaches the MCP layer, and for every request the
 * door refused, whatever the log level: the tool call's own line (src/observe/tool-observer.ts)
 * comes only from a tool that ran, so a call to a tool that does not exist, a tools/list, a
 * 401 or a refused listening stream left no trace, and at MARKET_DATA_LOG_LEVEL=warn
 * nothing did. Who (subject, client id), what (the JSON-RPC method, the tool's name), how
 * it ended (the HTTP status) and how long it took; never a token, a key or an argument.
 *
 * The method and tool are read from the body (2025-11-25 clients send no Mcp-Method
 * header) where it is read once, by the prototype guard (src/mcp/prototype-guard.ts).
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from '../log.js';

/** What a JSON-RPC body asks: its method(s) and, for tools/call, the tool (names only, never arguments). */
export function rpcOf(body: unknown): { method: string; tool?: string } {
  const messages = Array.isArray(body) ? body : [body];
  const methods: string[] = [];
  let tool: string | undefined;
  for (const message of messages) {
    const method = fieldOf(message, 'method');
    methods.push(typeof method === 'string' ? short(method) : fieldOf(message, 'result') !== undefined ? 'response' : 'unknown');
    const name = fieldOf(fieldOf(message, 'params'), 'name');
    if (method === 'tools/call' && typeof name === 'string') tool = short(name);
  }
  return { method: methods.join(','), ...(tool === undefined ? {} : { tool }) };
}

export interface AuditEntry {
  subject?: string | undefined;
  client_id?: string | undefined;
  method: string;
  tool?: string | undefined;
}

/** Writes the request's audit line when its answer has been sent (or its caller left); `started`: when the request came. */
export function auditWhenAnswered(
  log: Pick<Logger, 'info'>,
  res: ServerResponse,
  kind: 'mcp_request' | 'refused',
  entry: AuditEntry,
  started: number,
): void {
  const write = (): void =>
    log.info(
      { audit: kind, ...entry, status: res.statusCode, answered: res.writableFinished, latency_ms: Date.now() - started },
      kind === 'refused' ? 'request refused' : 'mcp request',
    );
  if (res.closed) write();
  else res.once('close', write);
}

function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** Names as sent, but bounded: a client's made-up method cannot fill the log. */
function short(value: string): string {
  return value.length > 64 ? `${value.slice(0, 64)}…` : value;
}
