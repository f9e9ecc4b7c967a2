/**
 * What a new user's trial of this round found, each through the binary against the
 * simulator with its requests counted: a scope discover says the key lacks is refused for
 * the dealer tool and the batch as for the others; a dealer cursor this server did not
 * issue is refused before any request; a dealer range over a weekend costs nothing; a
 * ticker filter on lit prints without a limit answers; a batch whose every ticker fails
 * is an error the agent can act on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shiftDate, toEt, weekday } from '../../src/catalog/market-calendar.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

/** The latest Saturday before `date`. */
function lastSaturday(date: string): string {
  let day = shiftDate(date, -1);
  while (weekday(day) !== 6) day = shiftDate(day, -1);
  return day;
}

test('a key without the dealer or volatility scope: once discover says so, neither the dealer tool nor the batch asks again', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-narrow-key' });
    try {
      const sent = (prefix: string): number => sim.api.requests.filter((r) => r.path.startsWith(prefix)).length;
      const first = errorOf(await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY' } }));
      assert.equal(first.code, 'SCOPE_INSUFFICIENT');
      const afterFirst = sent('/v1/derived');
      const again = errorOf(await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'QQQ' } }));
      assert.equal(again.code, 'SCOPE_INSUFFICIENT');
      assert.equal(sent('/v1/derived'), afterFirst, 'the second dealer call was answered without a request');

      errorOf(await client.callTool({ name: 'volatility_anomaly', arguments: { ticker: 'AAPL' } }));
      const volatilityBefore = sent('/v1/volatility');
      const batch = await client.callTool({ name: 'volatility_compare', arguments: { tickers: 'AAPL,MSFT' } });
      assert.equal(batch.isError, true, 'every ticker failed: an error, not an empty success');
      assert.equal(errorOf(batch).code, 'SCOPE_INSUFFICIENT');
      assert.equal(sent('/v1/volatility'), volatilityBefore, 'the batch sent nothing the key cannot use');
    } finally {
      await close();
    }
  });
});

test('a dealer cursor this server did not issue, and a dealer range over a weekend: answered without a request', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const dealerRequests = (): number => sim.api.requests.filter((r) => r.path.startsWith('/v1/derived')).length;
      const bad = errorOf(await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', cursor: 'garbage' } }));
      assert.equal(bad.code, 'VALIDATION_ERROR');
      assert.match(bad.message, /not one this server issued/);
      assert.equal(dealerRequests(), 0, 'the broken cursor was not sent');

      const saturday = lastSaturday(toEt(Date.now()).date);
      const weekend = await client.callTool({
        name: 'derived_dealer_gex_history',
        arguments: { ticker: 'SPY', view: 'levels', from: saturday, to: shiftDate(saturday, 1) },
      });
      assert.notEqual(weekend.isError, true, JSON.stringify(weekend).slice(0, 300));
      const meta = (weekend.structuredContent as { meta: { units?: number; notice?: string } }).meta;
      assert.equal(meta.units, 0);
      assert.match(meta.notice ?? '', /Nothing was charged/);
      assert.equal(dealerRequests(), 0, 'the weekend range was not sent');
    } finally {
      await close();
    }
  });
});

test('lit prints filtered by ticker without a limit answer with that ticker’s prints, or say the upstream held none within reach', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const result = await client.callTool({ name: 'stocks_lit_trades_recent', arguments: { tickers: 'AAPL' } });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      const { data: rows, meta } = result.structuredContent as {
        data: { ticker: string }[];
        meta: { notice?: string; more_rows?: string };
      };
      if (rows.length === 0) {
        // An upstream whose document offers neither a page size nor a way on (seed 872269826
        // lists only `format`) answers its latest 20 market-wide prints: none may be AAPL's,
        // and the answer must say how many it read and that no older ones can be read.
        assert.match(meta.notice ?? '', /0 of \d+ rows read matched tickers=AAPL/);
        assert.match(meta.more_rows ?? '', /cannot be read through this API/);
        return;
      }
      assert.deepEqual([...new Set(rows.map((r) => r.ticker))], ['AAPL']);
    } finally {
      await close();
    }
  });
});
