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
import { startSimProxy } from '../helpers/sim-proxy.js';

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

test('names of the sector missing from a screener answer that says more rows follow are said unread, never without a row', async () => {
  // The screener answers each batch without its first two names and says more rows follow, as an
  // upstream read over market-wide pages does when its pages stop before those names.
  await withSimulator(
    // The rewrite writes "more follow" into our wire form's `_meta`: it knows no other.
    { materializationMs: 0, limits: { perWindow: 1000, perIpPerWindow: 1000 }, dialect: 'spec' },
    async (sim) => {
      const dropped: string[] = [];
      const proxy = await startSimProxy(sim.url, (path) =>
        path.startsWith('/v1/shorts/short-screener')
          ? {
              rewrite: (body) => {
                const page = body as { data: Record<string, unknown>[]; _meta?: Record<string, unknown> };
                dropped.push(...page.data.slice(0, 2).map((r) => String(r['ticker'])));
                return { ...page, data: page.data.slice(2), _meta: { ...page._meta, next_cursor: 'c2', has_more: true } };
              },
            }
          : {},
      );
      const { client, close } = await connectV2({ baseUrl: proxy.url, key: 'sim-live-key' });
      try {
        const result = await client.callTool({ name: 'shorts_sector_screener', arguments: { sector: 'Technology', limit: 25 } });
        assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
        const answer = result.structuredContent as Answer;
        const notice = String(answer.meta['notice']);
        assert.ok(dropped.length >= 2, `the screener was asked: ${dropped.join(',')}`);
        const unread = /(\d+) of the sector's names \(([^)]*)\) were not in the screener rows read/.exec(notice);
        assert.ok(unread, notice);
        const said = unread[2]?.split(', ') ?? [];
        assert.equal(Number(unread[1]), said.length, notice);
        // Every name dropped, and any the sector lists that the simulator has no row for: none of them was read whole.
        for (const name of dropped) assert.ok(said.includes(name), `${name} in ${notice}`);
        assert.doesNotMatch(notice, /names have no row/, 'no name is said to have no row on pages never read');
        assert.ok(String(answer.meta['covers']).includes(`(${said.length} not reached)`), String(answer.meta['covers']));
        assert.equal(answer.meta['truncated'], true);
        for (const name of dropped) assert.ok(!answer.data.some((r) => r['ticker'] === name), `${name} was dropped from every answer`);
      } finally {
        await close();
        await proxy.close();
      }
    },
  );
});
