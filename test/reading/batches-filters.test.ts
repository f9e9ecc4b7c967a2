/**
 * Batches and filters done on this side: several tickers or a sector in one call, each
 * ticker's failure beside the others' rows; prints filtered by size, notional, time and
 * ticker, open-interest changes by direction; no filter name ever reaches the upstream.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldName } from '../../src/simulator/dialect-body.js';
import { dialectList } from '../helpers/answers-harness.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';
import { lastFullSession } from '../helpers/sessions.js';

type Row = Record<string, unknown>;
const ET = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

test('volatility_compare: a sector in one call, steepest put skew first, agreeing with the single-ticker tool; a bad ticker fails alone', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const result = await client.callTool({ name: 'volatility_compare', arguments: { sector: 'Technology', measure: 'skew' } });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      const rows = (result.structuredContent as { data: Row[] }).data;
      assert.ok(rows.length >= 5 && rows.length <= 10, `${rows.length} rows`);
      const skews = rows.map((r) => Number(r['rr25']));
      assert.deepEqual(
        skews,
        [...skews].sort((a, b) => a - b),
        'most negative rr25 first',
      );
      // The skew tool answers the upstream's rows as it sends them: its name for the 25-delta
      // risk reversal, its numbers as JSON or as text. The batch reads them as a number under ours.
      const rr25 = fieldName(sim.api.dialect, 'volatility.risk_reversal_skew', 'rr25');
      for (const row of rows.slice(0, 2)) {
        const single = await client.callTool({ name: 'volatility_risk_reversal_skew', arguments: { ticker: row['ticker'] } });
        const series = (single.structuredContent as { data: Row[] }).data;
        const newest = [...series].sort((a, b) => String(b['date']).localeCompare(String(a['date'])))[0];
        assert.equal(typeof row['rr25'], 'number');
        assert.equal(row['rr25'], Number(newest?.[rr25]), `${String(row['ticker'])}: the batch agrees with the skew tool`);
      }

      const mixed = await client.callTool({ name: 'volatility_compare', arguments: { tickers: 'AAPL,ZZZZ,MSFT' } });
      assert.notEqual(mixed.isError, true);
      const answer = mixed.structuredContent as { data: Row[]; failed: { ticker: string; error: { code: string } }[] };
      assert.deepEqual(answer.data.map((r) => r['ticker']).sort(), ['AAPL', 'MSFT']);
      assert.deepEqual(
        answer.data.map((r) => [typeof r['anomaly_score'], typeof r['rr25']]),
        [
          ['number', 'number'],
          ['number', 'number'],
        ],
      );
      assert.deepEqual(
        answer.failed.map((f) => [f.ticker, f.error.code]),
        [['ZZZZ', 'NOT_FOUND']],
      );

      const eleven = 'AAPL,MSFT,NVDA,TSLA,AMD,META,AMZN,GOOGL,NFLX,ORCL,CRM';
      const before = sim.api.requests.length;
      const refused = errorOf(await client.callTool({ name: 'volatility_compare', arguments: { tickers: eleven } }));
      assert.equal(refused.code, 'VALIDATION_ERROR');
      assert.match(refused.message, /at most 10/);
      assert.equal(sim.api.requests.length, before, 'refused before any request');
    } finally {
      await close();
    }
  });
});

test('dark-pool prints by size, notional and time, lit prints by ticker, OI changes by direction; no filter name is sent upstream', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    const rowsOf = async (name: string, args: Record<string, unknown>): Promise<Row[]> => {
      const result = await client.callTool({ name, arguments: args });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      return (result.structuredContent as { data: Row[] }).data;
    };
    try {
      // The session's newest 500 prints, read from the simulator in its own dialect (its names, its pages).
      // A whole past session: today's, once open, holds no 15:00 prints until the afternoon.
      const session = lastFullSession();
      const all = (await dialectList(sim, '/v1/darkpool/by-ticker/AAPL', 500, { session_date: session })).rows as Row[];
      const big = await rowsOf('darkpool_by_ticker', {
        ticker: 'AAPL',
        session_date: session,
        limit: 500,
        min_notional_usd: 2_000_000,
        from_time: '15:00',
      });
      assert.ok(big.length > 0 && big.length < all.length, `${big.length} of ${all.length}`);
      for (const row of big) {
        assert.ok(Number(row['notional_usd']) >= 2_000_000);
        assert.ok(ET.format(new Date(String(row['executed_at']))) >= '15:00');
      }
      const expected = all.filter(
        (r) => Number(r['notional_usd']) >= 2_000_000 && ET.format(new Date(String(r['executed_at']))) >= '15:00',
      );
      assert.equal(big.length, expected.length, 'exactly the rows that match, none lost');
      const sized = await rowsOf('darkpool_by_ticker', { ticker: 'GME', min_size: 5000 });
      for (const row of sized) assert.ok(Number(row['size']) >= 5000);

      const lit = await rowsOf('stocks_lit_trades_recent', { tickers: 'AAPL,TSLA', limit: 1000, fields: ['ticker', 'size'] });
      assert.ok(lit.length > 0);
      for (const row of lit) assert.ok(['AAPL', 'TSLA'].includes(String(row['ticker'])));

      for (const direction of ['increase', 'decrease'] as const) {
        const oi = await rowsOf('market_oi_change', { direction, limit: 300, fields: ['contract', 'oi_change'] });
        assert.ok(oi.length > 0, direction);
        for (const row of oi) assert.equal(Math.sign(Number(row['oi_change'])), direction === 'increase' ? 1 : -1);
      }
      for (const request of sim.api.requests)
        assert.doesNotMatch(request.query, /min_size|min_notional|from_time|to_time|direction|tickers=AAPL%2CTSLA/, request.query);
    } finally {
      await close();
    }
  });
});
