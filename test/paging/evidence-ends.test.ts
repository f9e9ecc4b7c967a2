/**
 * Issue 29, through the built binary: an upstream whose cursor goes round in a circle
 * (c0 → c1 → c2 → c1) is read once a page, following next_cursor ends, and the answer says the
 * paging repeated itself instead of claiming an end; a dealer history paged Stripe's way
 * (`starting_after`, `has_more` and no token) says the snapshots it could not reach are left out
 * instead of covering the session whole; a JSON:API list whose next link is null is whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';
import { dialectSnapshots } from '../helpers/answers-harness.js';
import { catalogDocument, withFakeUpstream, type FakeAnswer } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789';
const TRADES = '/v1/congress/recent-trades';
const HELD = 137;
const ROWS = Array.from({ length: HELD }, (_, i) => ({ id: i, member: `Member ${i}`, ticker: ['AAPL', 'MSFT', 'NVDA'][i % 3] }));

type Answer = {
  data: { id: number }[];
  meta: { next_cursor?: string; has_more?: boolean; truncated: boolean; notice?: string; more_rows?: string };
};

function refuse(message: string): FakeAnswer {
  return { status: 400, body: { error: { code: 'VALIDATION_ERROR', tags: [], message, docs_url: 'x', request_id: null } } };
}

for (const [tool, template, path, args] of [
  ['congress_recent_trades', TRADES, TRADES, { limit: 50 }],
  ['congress_recent_trades', TRADES, TRADES, { tickers: 'AAPL,MSFT,NVDA', limit: 50 }],
  ['stocks_dividends', '/v1/stocks/dividends/{ticker}', '/v1/stocks/dividends/AAPL', { ticker: 'AAPL', limit: 50 }],
] as const) {
  test(`${tool} ${JSON.stringify(args)}: a cursor that repeats (c2 names c1 again) is not followed twice, and no end is claimed`, async () => {
    await withFakeUpstream(async (fake) => {
      const doc = catalogDocument();
      const listed = doc.paths[template];
      assert.ok(listed);
      listed.get.parameters = [
        ...listed.get.parameters.filter((p) => p['in'] === 'path'),
        { name: 'cursor', in: 'query', required: false, schema: { type: 'string', maxLength: 64 } },
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 50 } },
      ];
      fake.document = doc;
      fake.answer = (_req, url) => {
        if (url.pathname !== path) return refuse('not served here');
        const n = Number((url.searchParams.get('cursor') ?? 'c0').slice(1));
        const next = n === 2 ? 'c1' : `c${n + 1}`;
        return { body: { data: ROWS.slice(n * 50, (n + 1) * 50), meta: { next_cursor: next } } };
      };
      const server = await connectV2({ baseUrl: fake.url, key: KEY });
      try {
        const answers: Answer[] = [];
        let cursor: string | undefined;
        for (let guard = 0; guard < 12; guard += 1) {
          const given = cursor ? { ...('ticker' in args ? { ticker: args.ticker } : {}), cursor } : args;
          const result = await server.client.callTool({ name: tool, arguments: given });
          assert.notEqual(result.isError, true, textOf(result));
          const answer = result.structuredContent as Answer;
          answers.push(answer);
          cursor = answer.meta.next_cursor;
          if (!cursor) break;
        }
        const ids = answers.flatMap((a) => a.data.map((r) => r.id));
        assert.deepEqual(
          ids,
          ROWS.map((r) => r.id),
          'every row the three pages hold, once',
        );
        const last = answers.at(-1);
        assert.ok(last);
        assert.equal(last.meta.next_cursor, undefined, 'following next_cursor ends');
        assert.equal(last.meta.has_more, undefined, 'the end is not claimed');
        assert.match(last.meta.notice ?? '', /paging repeated itself/);
        assert.equal(fake.dataRequests().length, 3, 'c0, c1, c2 asked once each');
      } finally {
        await server.close();
      }
    });
  });
}

test('a JSON:API list whose last page has links.next null and meta.total met is whole, not cut at the maximum limit', async () => {
  await withFakeUpstream(async (fake) => {
    const doc = catalogDocument();
    const trades = doc.paths[TRADES];
    assert.ok(trades);
    trades.get.parameters = [{ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200 } }];
    fake.document = doc;
    const held = ROWS.slice(0, 45);
    fake.answer = (_req, url) => {
      const after = Number(url.searchParams.get('after') ?? 0);
      const page = held.slice(after, after + 20);
      const next = after + 20 < held.length ? `${fake.url}${TRADES}?after=${after + 20}` : null;
      return { body: { data: page, links: { self: url.pathname, next }, meta: { total: held.length } } };
    };
    const server = await connectV2({ baseUrl: fake.url, key: KEY });
    try {
      const result = await server.client.callTool({ name: 'congress_recent_trades', arguments: { tickers: 'AAPL,MSFT,NVDA', limit: 200 } });
      assert.notEqual(result.isError, true, textOf(result));
      const answer = result.structuredContent as Answer;
      assert.equal(answer.data.length, 45);
      assert.equal(answer.meta.truncated, false, 'nothing left out');
      assert.equal(answer.meta.has_more, false, 'the null next link says the end');
      assert.equal(answer.meta.more_rows, undefined);
    } finally {
      await server.close();
    }
  });
});

test('a dealer history paged by starting_after with has_more and no token: the snapshots out of reach are said left out', async () => {
  await withSimulator({ dialect: 'spec', limits: { perWindow: 100_000, perIpPerWindow: 100_000 } }, async (sim) => {
    const history = (await dialectSnapshots(sim, 'SPY')) as unknown as Record<string, unknown>[];
    const sessions = [...new Set(history.map((s) => String(s['session_date_et'])))];
    const older = sessions[1];
    assert.ok(older, 'the history holds an older session');
    await withFakeUpstream(async (fake) => {
      const doc = catalogDocument();
      const dealer = doc.paths['/v1/derived/dealer-gex/{ticker}/history'];
      assert.ok(dealer);
      dealer.get.parameters = [
        dealer.get.parameters.find((p) => p['in'] === 'path') ?? {},
        { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } },
        { name: 'starting_after', in: 'query', required: false, schema: { type: 'string', maxLength: 64 } },
      ];
      fake.document = doc;
      fake.answer = (_req, url) => {
        const limit = Number(url.searchParams.get('limit') ?? 10);
        const after = url.searchParams.get('starting_after');
        const start = after ? history.findIndex((s) => s['snapshot_at'] === after) + 1 : 0;
        const data = history.slice(start, start + limit);
        return { body: { object: 'list', url: '/v1/derived/dealer-gex/SPY/history', data, has_more: start + limit < history.length } };
      };
      const server = await connectV2({ baseUrl: fake.url, key: KEY });
      try {
        const result = await server.client.callTool({
          name: 'derived_dealer_gex_history',
          arguments: { ticker: 'SPY', view: 'levels', session_date: older },
        });
        assert.notEqual(result.isError, true, textOf(result));
        const answer = result.structuredContent as Answer;
        const held = history.filter((s) => s['session_date_et'] === older).length;
        assert.ok(held > 0);
        assert.equal(answer.meta.truncated, true, `the session holds ${held} snapshots, not all read: left out`);
        assert.equal(answer.meta.has_more, true);
        assert.match(answer.meta.more_rows ?? '', /names no next page this server can ask for/);
      } finally {
        await server.close();
      }
    });
  });
});
