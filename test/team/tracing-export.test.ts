import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { connectV2 } from '../helpers/mcp.js';

interface ExportedSpan {
  traceId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
}

/** An OTLP/HTTP collector on loopback: keeps every span the server exports (JSON encoding). */
function spansOf(body: unknown): ExportedSpan[] {
  const resourceSpans = (body as { resourceSpans?: { scopeSpans?: { spans?: ExportedSpan[] }[] }[] }).resourceSpans ?? [];
  return resourceSpans.flatMap((r) => (r.scopeSpans ?? []).flatMap((s) => s.spans ?? []));
}

let collector: Server;
let endpoint: string;
const received: ExportedSpan[] = [];
let exported: () => void = () => undefined;
const firstExport = new Promise<void>((resolve) => (exported = resolve));

before(async () => {
  collector = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        received.push(...spansOf(JSON.parse(text)));
        exported();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});
after(() => collector.close());

test('the built binary exports its spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, in the trace the caller named', async () => {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  const server = await connectV2({ args: ['--demo'], env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
  const result = await server.client.callTool({
    name: 'shorts_short_screener',
    arguments: { limit: 2 },
    _meta: { traceparent: `00-${traceId}-${parentId}-01` },
  });
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  // Closing the server sends the spans still buffered.
  await server.close();
  // The export is sent before the process exits; a bound keeps a server that never exports from hanging the test.
  await Promise.race([firstExport, delay(15_000)]);
  const ours = received.filter((s) => s.traceId.toLowerCase() === traceId);
  const call = ours.find((s) => s.name === 'tools/call shorts_short_screener');
  assert.ok(call, `the tool span reached the collector in the caller's trace (got ${received.map((s) => s.name).join(', ')})`);
  assert.equal(call.parentSpanId?.toLowerCase(), parentId);
  assert.ok(
    ours.some((s) => s.name === 'GET'),
    'the upstream request span too',
  );
});
