/**
 * --hide-inaccessible hides volatility_compare with the datasets it reads: a key without
 * read:volatility sees neither the skew tools nor the batch of them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';

test('--hide-inaccessible: volatility_compare goes with the volatility datasets a key cannot read, and stays for one that can', async () => {
  await withSimulator({}, async (sim) => {
    const listed = async (key: string): Promise<string[]> => {
      const { client, close } = await connectV2({ baseUrl: sim.url, key, args: ['--hide-inaccessible'] });
      try {
        return (await client.listTools()).tools.map((t) => t.name);
      } finally {
        await close();
      }
    };
    const narrow = await listed('sim-narrow-key');
    assert.ok(narrow.length > 1, 'the narrow key still has tools');
    assert.ok(!narrow.some((name) => name.startsWith('volatility_')), narrow.join(','));
    const live = await listed('sim-live-key');
    assert.ok(live.includes('volatility_risk_reversal_skew') && live.includes('volatility_compare'), live.join(','));
  });
});
