/**
 * `shorts_sector_screener` with a limit below the names that have a row: a new-user trial
 * saw `has_more: true` with no cursor and no word of how to get the rest. It now says in
 * `more_rows` how many are left and the limit that shows them, and that limit does.
 * Through the built server against the simulator.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';

type Answer = { data: Record<string, unknown>[]; meta: Record<string, unknown> };

test('a sector screen cut at its limit says how many rows are left and the limit that shows them, and that limit does', async () => {
  await withSimulator({ materializationMs: 0, limits: { perWindow: 1000, perIpPerWindow: 1000 } }, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const screen = async (limit: number): Promise<Answer> => {
        const result = await client.callTool({ name: 'shorts_sector_screener', arguments: { sector: 'Technology', limit } });
        assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
        return result.structuredContent as Answer;
      };
      const first = await screen(3);
      assert.equal(first.data.length, 3);
      assert.equal(first.meta['has_more'], true);
      const withRow = Number(/(\d+) with a row/.exec(String(first.meta['covers']))?.[1]);
      assert.ok(withRow > 3 && withRow <= 25, String(first.meta['covers']));
      const more = String(first.meta['more_rows']);
      assert.match(more, new RegExp(`^${withRow - 3} more of the sector's names have a row`));
      const limit = Number(/limit=(\d+)/.exec(more)?.[1]);
      assert.equal(limit, withRow, more);

      const all = await screen(limit);
      assert.equal(all.data.length, withRow);
      assert.deepEqual(
        all.data.slice(0, 3).map((r) => r['ticker']),
        first.data.map((r) => r['ticker']),
        'the first rows again, then the rest',
      );
      assert.equal(all.meta['has_more'], false);
      assert.equal(all.meta['more_rows'], undefined);
      assert.equal(all.meta['units'], 0, 'a repeat is served from the cache, as more_rows says');
    } finally {
      await close();
    }
  });
});
