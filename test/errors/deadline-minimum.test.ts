/**
 * A deadline below the minimum is clamped to the minimum, not replaced by the 50 s default:
 * the user asked for a short deadline and gets the shortest there is, with a warning.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

test('MARKET_DATA_DEADLINE_MS=700: calls end at the 1 s minimum, and api_status says the value was clamped', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key', env: { MARKET_DATA_DEADLINE_MS: '700' } });
    try {
      const status = await client.callTool({ name: 'api_status', arguments: { details: true } });
      const warnings = (status.structuredContent as { server: { config_warnings: string[] } }).server.config_warnings;
      assert.ok(
        warnings.some((w) => w.includes('MARKET_DATA_DEADLINE_MS') && w.includes('using 1000')),
        warnings.join(' | '),
      );
      // Answered after 3 s: under the 1 s minimum the call ends first, under the default it would wait.
      sim.api.faults.latencyMs = 3000;
      const error = errorOf(await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } }));
      assert.equal(error.code, 'DEADLINE_EXCEEDED');
    } finally {
      sim.api.faults.latencyMs = 0;
      await close();
    }
  });
});
