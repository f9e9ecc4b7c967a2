/**
 * The team server's audit, metrics and traces are middleware over the tool values
 * (src/mcp/tool.ts), applied before registration: no SDK object is patched to add them, and
 * the runtime is left as it was made.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { McpServer, Server } from '@modelcontextprotocol/server';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createLiveServer, createServer } from '../../src/mcp/server.js';
import { createTeamOps } from '../../src/team/team.js';
import { startTracing, traceToolCalls } from '../../src/observe/tracing.js';
import { createRuntime } from '../../src/runtime.js';
import { freshCacheDir } from '../helpers/mcp.js';

const TOOL = 'shorts_short_screener';

test('a team server with audit, metrics and traces patches no SDK object and leaves its runtime as made', async () => {
  // The SDK's own methods, as its classes hold them before anything is made.
  const registerTool = Object.getOwnPropertyDescriptor(McpServer.prototype, 'registerTool');
  const connect = Object.getOwnPropertyDescriptor(Server.prototype, 'connect');
  assert.ok(registerTool && connect);
  const exporter = new InMemorySpanExporter();
  const tracing = startTracing({ version: 'test', processor: new SimpleSpanProcessor(exporter) });
  const team = createTeamOps({ dailyUnits: undefined, keyMap: undefined });
  const runtime = await createRuntime(
    { MARKET_DATA_LOG_LEVEL: 'silent', MARKET_DATA_CACHE_DIR: freshCacheDir() },
    {
      demo: true,
      wrapGate: (gate, redis) => team.wrapGate(gate, redis),
      middleware: traceToolCalls(tracing.tracer, 'tcp'),
      afterClose: () => tracing.shutdown(),
    },
  );
  const made = runtime.deps;
  const served = team.attach(
    runtime,
    { token: 'sdk-untouched-token-0123456789', generated: false, allowedHosts: ['127.0.0.1'] },
    undefined,
  );
  assert.equal(runtime.deps, made, "the runtime's deps are the ones it was made with");

  const server = createServer(await served.depsFor({ subject: 'alice', clientId: 'alice-agent' }));
  const live = createLiveServer(runtime.deps);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'sdk-untouched', version: '1' });
  await client.connect(clientTransport);
  try {
    const result = await client.callTool({ name: TOOL, arguments: { limit: 2 } });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));

    // The middleware ran: the call was counted (audit and metrics) and traced.
    const metrics = await team.metrics.registry.metrics();
    assert.match(metrics, new RegExp(`mdmcp_tool_calls_total\\{tool="${TOOL}",outcome="ok"\\} 1`));
    assert.ok(
      exporter.getFinishedSpans().some((span) => span.name === `tools/call ${TOOL}`),
      'the call has its span',
    );

    // Yet nothing of the SDK was replaced, neither on its classes nor on the instances.
    assert.deepEqual(
      Object.getOwnPropertyDescriptor(McpServer.prototype, 'registerTool'),
      registerTool,
      'McpServer.prototype.registerTool',
    );
    assert.deepEqual(Object.getOwnPropertyDescriptor(Server.prototype, 'connect'), connect, 'Server.prototype.connect');
    for (const instance of [server, live.server]) {
      assert.ok(!Object.hasOwn(instance, 'registerTool'), 'no registerTool of its own on the server');
      assert.ok(!Object.hasOwn(instance.server, 'connect'), 'no connect of its own on the protocol server');
      assert.equal(instance.server.onclose, undefined, 'no onclose set on the protocol server');
    }
  } finally {
    live.stop();
    await client.close();
    await served.close();
    await runtime.close();
  }
});
