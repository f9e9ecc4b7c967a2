/**
 * The tools that compare a sector's largest names read them from the sector directory. A
 * directory page that says more names follow is not the whole sector: volatility_compare
 * said "the 10 largest of 25 names" where 25 was only the first page's count. Through the
 * built server against the simulator, its directory's answers steered by a proxy.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';
import { startSimProxy } from '../helpers/sim-proxy.js';

type Answer = { data: Record<string, unknown>[]; meta: Record<string, unknown> };

async function compareSector(more: boolean): Promise<{ answer: Answer; listed: number }> {
  // The rewrite writes "more follow" into our wire form's `_meta`: it knows no other.
  return withSimulator({ materializationMs: 0, limits: { perWindow: 1000, perIpPerWindow: 1000 }, dialect: 'spec' }, async (sim) => {
    let listed = 0;
    const proxy = await startSimProxy(sim.url, (path) =>
      path.startsWith('/v1/stocks/sector-tickers')
        ? {
            rewrite: (body) => {
              const page = body as { data: unknown[]; _meta?: Record<string, unknown> };
              listed = page.data.length;
              return { ...page, _meta: { ...page._meta, next_cursor: more ? 'c2' : null, has_more: more } };
            },
          }
        : {},
    );
    const { client, close } = await connectV2({ baseUrl: proxy.url, key: 'sim-live-key' });
    try {
      const result = await client.callTool({ name: 'volatility_compare', arguments: { sector: 'Technology', measure: 'skew' } });
      assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
      return { answer: result.structuredContent as Answer, listed };
    } finally {
      await close();
      await proxy.close();
    }
  });
}

test('a sector directory page that says more names follow: its count is said as the first page, never as the sector', async () => {
  const { answer, listed } = await compareSector(true);
  const notice = String(answer.meta['notice']);
  assert.ok(listed > 0, 'the directory was read');
  assert.match(
    notice,
    new RegExp(`Technology: its ${Math.min(10, listed)} largest names \\(the directory lists more than the ${listed} read\\)`),
  );
  assert.doesNotMatch(notice, new RegExp(`largest of ${listed} names`));
});

test('a sector directory page that is the whole sector: its count is the sector', async () => {
  const { answer, listed } = await compareSector(false);
  const notice = typeof answer.meta['notice'] === 'string' ? answer.meta['notice'] : '';
  assert.doesNotMatch(notice, /lists more/);
  assert.ok(listed > 10, `the simulator's Technology lists more than the 10 compared: ${listed}`);
  assert.match(notice, new RegExp(`Technology: the 10 largest of ${listed} names`));
});
