/**
 * An audit line for every request that reaches the MCP layer, and for every request the
 * door refused, whatever the log level: the tool call's own line (src/ops/tool-observer.ts)
 * comes only from a tool that ran, so a call to a tool that does not exist, a tools/list, a
 * 401 or a refused listening stream left no trace, and at MARKET_DATA_LOG_LEVEL=warn
 * nothing did. Who (subject, client id), what (the JSON-RPC method, the tool's name), how
 * it ended (the HTTP status) and how long it took; never a token, a key or an argument.
 *
 * The body is read here, once, and handed to the SDK parsed: the method and tool are in it
 * for 2025-11-25 clients, which send no Mcp-Method header.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';

/** The SDK's own bound on a request body (createMcpHandler's maxRequestBodySize). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export type BodyRead = { ok: true; body: unknown } | { ok: false; status: 400 | 413; message: string; code: number };

/** The request's JSON body, or why it cannot be had (answered as the SDK would). */
export async function readJsonBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<BodyRead> {
  if (Number(req.headers['content-length']) > maxBytes)
    return { ok: false, status: 413, code: -32000, message: `Request body exceeds the maximum of ${maxBytes} bytes` };
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    received += bytes.length;
    if (received > maxBytes)
      return { ok: false, status: 413, code: -32000, message: `Request body exceeds the maximum of ${maxBytes} bytes` };
    chunks.push(bytes);
  }
  try {
    return { ok: true, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the body is not JSON' };
  }
}

/** Answers a body that could not be read, as the SDK answers it. */
export function refuseBody(res: ServerResponse, refusal: Extract<BodyRead, { ok: false }>): void {
  res
    .writeHead(refusal.status, { 'content-type': 'application/json', ...(refusal.status === 413 ? { connection: 'close' } : {}) })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: refusal.code, message: refusal.message }, id: null }));
}

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
