/**
 * A dark-pool time window read here over an upstream that takes no time parameters (vendor
 * dialect: prints 50 a page behind its cursor), through the built binary over stdio: one
 * answer reads at most the pages README promises, says how far back its prints reach, and an
 * inverted window is refused before any request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WINDOW_BUDGET } from '../../src/mcp/reading/row-filters.js';
import { previousTradingDay, toEt, tradingDayOnOrBefore } from '../../src/catalog/market-calendar.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';

const closedSession = (): string => previousTradingDay(tradingDayOnOrBefore(toEt(Date.now()).date));

test('vendor: an early dark-pool window reads at most the pages one answer may, and says how far back it read', async () => {
  await withSimulator({ dialect: 'vendor' }, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    const darkpoolRequests = (): number => sim.api.requests.filter((r) => r.path.startsWith('/v1/darkpool/')).length;
    try {
      const before = darkpoolRequests();
      const result = await client.callTool({
        name: 'darkpool_by_ticker',
        arguments: { ticker: 'AAPL', session_date: closedSession(), from_time: '09:30', to_time: '10:00' },
      });
      assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
      const meta = (result.structuredContent as { meta: Record<string, unknown> }).meta;
      const spent = darkpoolRequests() - before;
      assert.ok(spent <= WINDOW_BUDGET.pages, `${spent} pages read: README says a window reads at most ${WINDOW_BUDGET.pages}`);
      assert.equal(meta['units'], spent, 'units count the pages read');
      assert.match(String(meta['notice']), /\(back to \d\d:\d\d ET\)/, 'the notice says how far back the prints read reach');

      const inverted = darkpoolRequests();
      const refused = await client.callTool({
        name: 'darkpool_by_ticker',
        arguments: { ticker: 'AAPL', from_time: '10:00', to_time: '09:30' },
      });
      assert.equal(refused.isError, true, 'an inverted window is refused');
      assert.match(textOf(refused), /VALIDATION_ERROR/);
      assert.match(textOf(refused), /from_time/);
      assert.equal(darkpoolRequests(), inverted, 'refused before any request');
    } finally {
      await close();
    }
  });
});
