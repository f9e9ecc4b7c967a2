/**
 * A first start without a disk copy waits on the upstream's openapi.json; that request
 * goes through node:http, so the answer to tools/list comes before undici (20 MiB, 60 to
 * 150 ms) loads. undici loads with the first data call. Observed through NODE_DEBUG=module,
 * which names every CommonJS file node loads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ETF_FLOWS } from '../helpers/fixtures.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';

test('a first start lists the upstream datasets before loading undici; the first data call loads it', async () => {
  await withSimulator({ extraDatasets: [ETF_FLOWS] }, async (sim) => {
    const server = await connectV2({ baseUrl: sim.url, key: 'sim-live-key', env: { NODE_DEBUG: 'module' } });
    try {
      const { tools } = await server.client.listTools();
      assert.ok(
        tools.some((t) => t.name === 'etf_flows_by_ticker'),
        'the dataset only the upstream document lists is there: the document was fetched and imported',
      );
      assert.ok(
        sim.api.requests.some((r) => r.path === '/v1/openapi.json'),
        'the document came from the upstream, not a disk copy',
      );
      assert.doesNotMatch(server.stderr(), /node_modules\/undici\//, 'undici has not loaded');
      const call = await server.client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', limit: 1 } });
      assert.notEqual(call.isError, true);
      assert.match(server.stderr(), /node_modules\/undici\//, 'the data call loaded undici');
    } finally {
      await server.close();
    }
  });
});
