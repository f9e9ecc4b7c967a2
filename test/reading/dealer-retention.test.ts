/**
 * A dealer range that starts before the history's retention (the latest three sessions),
 * through the built binary on the simulator's dialect (MARKET_DATA_SIM_DIALECT): the answer
 * names the part that cannot be read and why, covers only what is held, and the notice
 * costs no request of its own; a range inside the retention carries no such notice.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { previousTradingDay, recentSessions } from '../../src/catalog/market-calendar.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';

interface Answer {
  data: { session_summaries: { session_date_et: string }[] };
  meta: { notice?: string; covers?: string; units?: number };
}

test('a dealer range from before the retained sessions says which part cannot be read, and covers only the sessions held', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    const dealerCharged = (from: number): number =>
      sim.api.requests.slice(from).filter((r) => r.path.startsWith('/v1/derived/dealer-gex/') && r.charged).length;
    try {
      const held = recentSessions(Date.now(), 3).map((s) => s.date);
      const oldest = held[held.length - 1] ?? '';
      let from = oldest;
      for (let i = 0; i < 7; i += 1) from = previousTradingDay(from);
      const call = async (args: Record<string, unknown>): Promise<Answer> => {
        const result = await client.callTool({
          name: 'derived_dealer_gex_history',
          arguments: { ticker: 'SPY', view: 'sessions', ...args },
        });
        assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
        return result.structuredContent as Answer;
      };

      const mark = sim.api.requests.length;
      const deep = await call({ from });
      const sessions = deep.data.session_summaries.map((s) => s.session_date_et);
      assert.ok(sessions.length > 0 && sessions.every((d) => held.includes(d)), `the sessions held are answered: ${sessions.join(', ')}`);
      const notice = deep.meta.notice ?? '';
      assert.ok(
        notice.includes(from) && notice.includes(oldest),
        `the notice names the range start ${from} and the oldest session held ${oldest}: ${notice}`,
      );
      assert.match(notice, /cannot be read: the history retains only/);
      assert.ok(!String(deep.meta.covers).startsWith(from), `covers claims no part not read: ${String(deep.meta.covers)}`);
      assert.ok(String(deep.meta.covers).startsWith(oldest), `covers starts at the oldest session held: ${String(deep.meta.covers)}`);
      assert.equal(deep.meta.units, dealerCharged(mark), 'units are the pages read; the notice cost no request');

      const inside = await call({ from: oldest });
      assert.doesNotMatch(inside.meta.notice ?? '', /cannot be read/, 'a range inside the retention has no such notice');
    } finally {
      await close();
    }
  });
});
