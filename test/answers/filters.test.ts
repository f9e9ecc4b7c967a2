/** Filters chosen in the catalog answer trader questions in one call; api_status opens with one actionable line. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { latestSession, tradingDaysBack } from '../../src/catalog/market-calendar.js';
import { errorOf } from '../helpers/mcp.js';
import { withSession } from '../helpers/answers-harness.js';

type Rows = Record<string, unknown>[];

test('tickers, side and dates narrow the screener, open-interest changes, congress trades and the anomaly batch', async () => {
  await withSession({}, async (session) => {
    const screener = (await session.answer('shorts_short_screener', { tickers: 'GME,AMC' })).data as Rows;
    assert.deepEqual([...new Set(screener.map((r) => r['ticker']))].sort(), ['AMC', 'GME']);

    const oi = (await session.answer('market_oi_change', { tickers: 'NVDA', limit: 20 })).data as Rows;
    assert.ok(oi.length > 0 && oi.length <= 20);
    assert.ok(oi.every((r) => r['underlying'] === 'NVDA'));

    // Disclosure days by the simulator's calendar (ET, weekends and holidays skipped): ten
    // sessions, ending three sessions before the latest.
    const days = tradingDaysBack(latestSession(session.sim.api.now()).date, 12);
    const from = days.at(-1) ?? '';
    const to = days.at(2) ?? '';
    const congress = (await session.answer('congress_recent_trades', { side: 'buy', from, to, limit: 500 })).data as Rows;
    assert.ok(congress.length > 0);
    assert.ok(congress.every((r) => r['side'] === 'buy' && String(r['disclosed_on']) >= from && String(r['disclosed_on']) <= to));
    const unfiltered = (await session.answer('congress_recent_trades', { limit: 500 })).data as Rows;
    assert.ok(
      unfiltered.some((r) => r['side'] === 'sell'),
      'without the filter sells are there',
    );
    assert.ok(
      unfiltered.some((r) => String(r['disclosed_on']) < from),
      'without the filter earlier disclosures are there',
    );

    const anomaly = (await session.answer('volatility_anomaly', { ticker: 'AAPL', with_tickers: 'MSFT,NVDA' })).data as Rows;
    assert.deepEqual(
      anomaly.map((r) => r['ticker']),
      ['AAPL', 'MSFT', 'NVDA'],
    );

    const bad = await session.call('shorts_short_screener', { tickers: 'gme' });
    // The tool declares an outputSchema: its errors travel as text only (tool-errors.ts).
    assert.equal(errorOf(bad).code, 'TICKER_INVALID');
  });
});

test('every answer says when its data is as of and what it covers', async () => {
  await withSession({}, async (session) => {
    const skew = await session.answer('volatility_risk_reversal_skew', { ticker: 'TSLA', from: '2026-10-01' });
    assert.ok(!Number.isNaN(Date.parse(String(skew.meta['as_of']))));
    assert.match(String(skew.meta['covers']), /^2026-10-01 to latest$/);
    assert.ok(['live', 'cache', 'degraded'].includes(String(skew.meta['data_source'])));
    const again = await session.answer('volatility_risk_reversal_skew', { ticker: 'TSLA', from: '2026-10-01' });
    assert.equal(again.meta['data_source'], 'cache');
  });
});

test('api_status opens with one line on calls, quota and what the key cannot use, and lists those tools', async () => {
  await withSession(
    {},
    async (session) => {
      await session.answer('market_total_options_volume', {});
      const status = (await session.call('api_status', { details: true })).structuredContent as {
        summary: string;
        cannot_use: Record<string, string[]>;
      };
      assert.equal(Object.keys(status)[0], 'summary');
      assert.match(status.summary, /requests left this minute/);
      assert.match(status.summary, /quota units left, resets \d{4}-/);
      const blocked = Object.values(status.cannot_use).flat();
      assert.ok(blocked.includes('flow_ticker_overview'), 'admin-only tool listed');
      assert.ok(blocked.includes('shorts_short_screener'), 'out-of-scope tool listed');
      assert.match(status.summary, /Cannot use \d+ tools or toolsets: see cannot_use/);
      assert.ok(!blocked.includes('market_total_options_volume'));
    },
    'sim-narrow-key',
  );
});
