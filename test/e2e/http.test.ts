import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { withSimulator } from '../helpers/http.js';
import { startHttp } from '../helpers/http-server.js';
import { eventually } from '../helpers/wait.js';

const TOKEN = 'e2e-http-token-0123456789';

/** A grace longer than the default's 3 s, as a deployment under Kubernetes (30 s) would set it. */
const GRACE_MS = 12_000;

test('--http shuts down gracefully on SIGTERM: a call in flight still gets its answer within the grace set, then the process exits 0', async () => {
  await withSimulator({}, async (sim) => {
    const { child, url } = await startHttp({
      MARKET_DATA_HTTP_TOKEN: TOKEN,
      MARKET_DATA_BASE_URL: sim.url,
      MARKET_DATA_API_KEY: 'sim-live-key',
      MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS: String(GRACE_MS),
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const client = new Client({ name: 'http-shutdown', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
      );
      await client.listTools();
      // The upstream's document read first (a call waits for it): the one request in flight below is then the call's.
      await eventually(() => sim.api.requests.some((r) => r.path === '/v1/openapi.json'), 'the upstream document read');
      // Longer than the default grace allows a call (2 s before its last second), so the answer
      // shows the grace set was kept; well within it, so a loaded machine (load 10 and more on
      // 2 cores took over 2 s to pass a 400 ms answer on) still ends before it.
      sim.api.faults.latencyMs = 2500;
      const call = client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      await eventually(() => sim.api.inFlight('acct_live').now === 1, 'the call in flight upstream');
      const signalledAt = Date.now();
      child.kill('SIGTERM');
      const result = await call;
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      const code = await exited;
      assert.equal(code, 0, 'the process ended with success');
      assert.ok(Date.now() - signalledAt < GRACE_MS, 'it ended once the call was answered, not at the forced exit');
      await client.close().catch(() => undefined);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

test('--http serves MCP on loopback and refuses a foreign Origin (DNS-rebinding protection)', async () => {
  const server = await startHttp({ MARKET_DATA_HTTP_TOKEN: TOKEN }, { args: ['--demo'] });
  const { url } = server;
  try {
    const client = new Client({ name: 'http-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'derived_dealer_gex_history'));
    const result = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
    assert.notEqual(result.isError, true);
    await client.close();

    const foreign = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'https://evil.example',
        authorization: `Bearer ${TOKEN}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
  } finally {
    await server.stop();
  }
});
