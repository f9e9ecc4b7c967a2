/**
 * A first start without a disk copy waits on the upstream's openapi.json; that request and
 * every data call go through node:http, so no package loads from node_modules at all:
 * undici, which data calls used, cost about 26 MiB resident (bench/soak-memory.mjs).
 * Observed through NODE_DEBUG=module, which names every CommonJS file node loads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ETF_FLOWS } from '../helpers/fixtures.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';

test('a first start lists the upstream datasets, and a data call answers, without loading a package from node_modules', async () => {
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
      assert.doesNotMatch(server.stderr(), /node_modules\//, 'nothing loaded from node_modules before the first answer');
      const call = await server.client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', limit: 1 } });
      assert.notEqual(call.isError, true);
      assert.doesNotMatch(server.stderr(), /node_modules\//, 'nor for the data call');
    } finally {
      await server.close();
    }
  });
});
