import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createServer } from '../../src/mcp/server.js';
import { startTracing, traceToolCalls } from '../../src/observe/tracing.js';
import { tracingWanted } from '../../src/observe/tracing-settings.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import { freshCacheDir } from '../helpers/mcp.js';

const TOOL = 'shorts_short_screener';

describe('OpenTelemetry traces of tool calls (MCP semantic conventions)', () => {
  const exporter = new InMemorySpanExporter();
  let runtime: Runtime;
  let client: Client;

  before(async () => {
    const tracing = startTracing({ version: 'test', processor: new SimpleSpanProcessor(exporter) });
    runtime = await createRuntime(
      { MARKET_DATA_LOG_LEVEL: 'silent', MARKET_DATA_CACHE_DIR: freshCacheDir() },
      { demo: true, middleware: traceToolCalls(tracing.tracer, 'pipe'), afterClose: () => tracing.shutdown() },
    );
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await createServer(runtime.deps).connect(serverTransport);
    client = new Client({ name: 'tracing-test', version: '1' });
    await client.connect(clientTransport);
  });
  after(async () => {
    await client.close();
    await runtime.close();
  });

  /** A call made with the caller's trace context in `_meta`, and the spans of that trace. */
  async function callInTrace(args: Record<string, unknown>): Promise<{ traceId: string; parentId: string; spans: ReadableSpan[] }> {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    exporter.reset();
    const result = await client.callTool({ name: TOOL, arguments: args, _meta: { traceparent: `00-${traceId}-${parentId}-01` } });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    return { traceId, parentId, spans: exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId) };
  }

  test('a call with a traceparent in _meta gets a tools/call span in that trace, with an upstream request span under it', async () => {
    const { parentId, spans } = await callInTrace({ limit: 2 });
    const call = spans.find((s) => s.kind === SpanKind.SERVER);
    assert.ok(call, `a server span in the caller's trace; spans: ${spans.map((s) => s.name).join(', ')}`);
    assert.equal(call.name, `tools/call ${TOOL}`);
    assert.equal(call.parentSpanContext?.spanId, parentId, "the caller's span is its parent");
    assert.equal(call.attributes['mcp.method.name'], 'tools/call');
    assert.equal(call.attributes['gen_ai.tool.name'], TOOL);
    assert.equal(call.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(call.attributes['network.transport'], 'pipe');
    assert.ok(call.attributes['jsonrpc.request.id'] !== undefined, 'the JSON-RPC id is recorded');

    const upstream = spans.filter((s) => s.kind === SpanKind.CLIENT);
    assert.ok(upstream.length > 0, 'the upstream request has its own span');
    for (const span of upstream) {
      assert.equal(span.parentSpanContext?.spanId, call.spanContext().spanId, 'under the tool call');
      assert.equal(span.attributes['http.request.method'], 'GET');
      assert.equal(span.attributes['http.response.status_code'], 200);
      assert.match(String(span.attributes['url.full']), /\/v1\//);
      assert.ok(span.endTime[0] + span.endTime[1] > 0, 'the request span ended');
    }
  });

  test('the same call answered from the cache has a tool span and no upstream span', async () => {
    await callInTrace({ limit: 3 });
    const { spans } = await callInTrace({ limit: 3 });
    assert.ok(
      spans.some((s) => s.kind === SpanKind.SERVER),
      'the call is traced',
    );
    assert.deepEqual(
      spans.filter((s) => s.kind === SpanKind.CLIENT).map((s) => s.name),
      [],
      'no request went upstream',
    );
  });

  test('a tool error marks its span with error.type tool_error', async () => {
    const traceId = randomBytes(16).toString('hex');
    exporter.reset();
    const result = await client.callTool({
      name: 'derived_dealer_gex_history',
      arguments: { ticker: 'NOT A TICKER' },
      _meta: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    assert.equal(result.isError, true);
    const call = exporter.getFinishedSpans().find((s) => s.spanContext().traceId === traceId && s.kind === SpanKind.SERVER);
    assert.ok(call);
    assert.equal(call.attributes['error.type'], 'tool_error');
  });
});

test('tracing is off unless the standard OTEL_* variables ask for it', () => {
  assert.equal(tracingWanted({}), false);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true);
  assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
  assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), false);
  assert.equal(tracingWanted({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }), false);
});
