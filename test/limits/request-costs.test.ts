/**
 * What a call spends is said before it is made (issue 32): the dealer tool's description and
 * api_status give the requests a session of levels and the three sessions take at this
 * upstream's page size, from its document where it takes a page size, and from its first
 * page where it pages at its own size (then the tool's description is stated again); the
 * calls then spend no more than said. api_status counts requests as requests.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';

async function dealerDescription(client: Client): Promise<string> {
  const { tools } = await client.listTools();
  return tools.find((t) => t.name === 'derived_dealer_gex_history')?.description ?? '';
}

async function unitsOf(client: Client, args: Record<string, unknown>): Promise<number> {
  const result = await client.callTool({ name: 'derived_dealer_gex_history', arguments: args });
  assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
  return Number((result.structuredContent as { meta: { units: number } }).meta.units);
}

/** The counts a description states: the newest session's levels and view=sessions, with the page size. */
function stated(description: string): { rows: number; session: number; history: number } | undefined {
  const match = /pages of (\d+) snapshots\).*?levels (\d+), view=sessions (\d+)/.exec(description);
  return match ? { rows: Number(match[1]), session: Number(match[2]), history: Number(match[3]) } : undefined;
}

test('the dealer tool and api_status say what a session costs in requests at this upstream, and the calls spend no more', async () => {
  await withSimulator({ limits: { perWindow: 1000, perIpPerWindow: 1000 } }, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const before = await dealerDescription(client);
      const takesPageSize = sim.api.dialect.traits.dealerPaging.size !== null;
      if (takesPageSize) {
        assert.deepEqual(stated(before), { rows: 60, session: 2, history: 4 }, before);
      } else {
        // A page size the document does not give is not guessed: it shows once a page is read.
        assert.equal(stated(before), undefined, before);
        assert.match(before, /api_status gives this page size once a page was read/);
      }
      const session = await unitsOf(client, { ticker: 'SPY', view: 'levels' });
      const history = await unitsOf(client, { ticker: 'QQQ', view: 'sessions' });
      const after = stated(await dealerDescription(client));
      assert.ok(after, 'stated once a page was read');
      assert.equal(after.rows, takesPageSize ? 60 : sim.api.dialect.traits.dealerPaging.pageSize);
      assert.ok(session >= 1 && session <= after.session, `the newest session's levels took ${session}, said ${after.session}`);
      assert.ok(history > 1 && history <= after.history, `view=sessions took ${history}, said ${after.history}`);
      const status = (await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as { summary: string; costs: string };
      assert.match(status.summary, /requests left this minute/);
      assert.doesNotMatch(status.summary, /calls left/);
      assert.match(status.costs, new RegExp(`dealer history newest 1, a session ${after.session}, view=sessions ${after.history}`));
      assert.match(status.costs, /briefing 5/);
    } finally {
      await close();
    }
  });
});
