/**
 * volatility_compare reads its measures by role (trial of issue 29): an upstream that calls
 * them `rr_25d`, `score` and `percentile_1y`, wraps them (`{status, results}`, objects keyed
 * by ticker) or sends numbers as strings answered rows holding only `ticker`, with no
 * notice. Every value is filled from the rows as the upstream holds them, and a ticker whose
 * fields cannot be read is named instead of answered blank.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, textOf } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

const TICKERS = ['AAPL', 'MSFT', 'NVDA'];
/** Per ticker: the skew series (newest first) and the anomaly, as the upstream holds them. */
const HELD = Object.fromEntries(
  TICKERS.map((ticker, t) => [
    ticker,
    {
      rr: Array.from({ length: 8 }, (_, day) => -0.05 + t * 0.01 + day * 0.001),
      iv: 0.2 + t * 0.05,
      score: 1.5 + t,
      percentile: 40 + t * 10,
    },
  ]),
);
const date = (day: number): string => new Date(Date.UTC(2026, 10, 20 - day)).toISOString().slice(0, 10);

interface Answer {
  data: Record<string, unknown>[];
  unread?: { ticker: string; fields: string[] }[];
  meta: { notice?: string };
}

test('measures named otherwise, wrapped otherwise and sent as text are read by role, every value filled', async () => {
  await withFakeUpstream(async (fake) => {
    fake.answer = (_req, url) => {
      const ticker = url.pathname.split('/').at(-1) ?? '';
      const held = HELD[ticker];
      if (!held) return { status: 404, body: { error: { code: 'NOT_FOUND', tags: [], message: 'x', docs_url: 'x' } } };
      if (url.pathname.includes('risk-reversal-skew'))
        return {
          body: {
            status: 'OK',
            request_id: 'r',
            count: held.rr.length,
            // Oldest first: the newest is found by its date, not its place.
            results: held.rr.map((rr, day) => ({ date: date(day), rr_25d: String(rr), iv30: String(held.iv) })).reverse(),
          },
        };
      return { body: { [ticker]: { score: String(held.score), percentile_1y: held.percentile, iv30: held.iv } } };
    };
    const server = await connectV2({ baseUrl: fake.url, key: 'fake-key-0123456789' });
    try {
      const result = await server.client.callTool({ name: 'volatility_compare', arguments: { tickers: TICKERS.join(',') } });
      assert.notEqual(result.isError, true, textOf(result));
      const answer = result.structuredContent as Answer;
      assert.equal(answer.data.length, TICKERS.length);
      for (const row of answer.data) {
        const held = HELD[String(row['ticker'])];
        assert.ok(held);
        assert.equal(row['rr25'], held.rr[0], `${String(row['ticker'])}: the newest rr25`);
        assert.equal(row['rr25_5d_change'], Math.round(((held.rr[0] ?? 0) - (held.rr[5] ?? 0)) * 1e4) / 1e4);
        assert.equal(row['atm_iv30'], held.iv);
        assert.equal(row['anomaly_score'], held.score);
        assert.equal(row['iv_percentile_1y'], held.percentile);
        assert.equal(row['date'], date(0));
      }
      assert.equal(answer.unread, undefined, 'nothing left unread');
    } finally {
      await server.close();
    }
  });
});

test('a ticker whose measures cannot be read is named with its fields, never answered as a row of only its ticker', async () => {
  await withFakeUpstream(async (fake) => {
    fake.answer = (_req, url) => {
      const ticker = url.pathname.split('/').at(-1) ?? '';
      const unreadable = ticker === 'MSFT';
      if (url.pathname.includes('risk-reversal-skew')) return { body: { data: [{ date: date(0), rr25: unreadable ? 'n/a' : '-0.04' }] } };
      return { body: { data: { anomaly_score: unreadable ? null : 2.5 } } };
    };
    const server = await connectV2({ baseUrl: fake.url, key: 'fake-key-0123456789' });
    try {
      const result = await server.client.callTool({ name: 'volatility_compare', arguments: { tickers: 'AAPL,MSFT' } });
      assert.notEqual(result.isError, true, textOf(result));
      const answer = result.structuredContent as Answer;
      assert.deepEqual(
        answer.data.map((r) => r['ticker']),
        ['AAPL'],
        'no blank row',
      );
      assert.deepEqual(answer.unread, [{ ticker: 'MSFT', fields: ['rr25', 'anomaly_score'] }]);
      assert.match(answer.meta.notice ?? '', /MSFT rr25 and anomaly_score/);
    } finally {
      await server.close();
    }
  });
});
