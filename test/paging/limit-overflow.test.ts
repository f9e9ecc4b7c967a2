/**
 * An upstream that sends more rows than the `limit` it was asked (trial of issue 19: 149 rows
 * came back for limit 100, cut by the token budget rather than by the limit). The agent gets
 * the rows it asked for; the rest of that page comes with the cursor, none skipped or repeated.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, textOf } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

interface Answer {
  data: { seq: number }[];
  meta: { has_more?: boolean; next_cursor?: string; truncated: boolean; more_rows?: string };
}

const PAGE = 250;
const LAST_PAGE = 30;

// The dark-pool prints page with a cursor; institutional ownership takes none, so the second
// page its upstream names cannot be asked for: the answer says the rest cannot be read.
for (const [tool, args, readable] of [
  ['darkpool_by_ticker', { ticker: 'SPY' }, PAGE + LAST_PAGE],
  ['institutions_ownership_by_ticker', { ticker: 'SPY' }, PAGE],
] as const) {
  test(`${tool}: ${PAGE} rows sent for limit 40 → 40 rows an answer, and the cursor reads the rest once, never the first page again`, async () => {
    await withFakeUpstream(async (fake) => {
      // Whatever limit is asked, the first page holds PAGE rows and names a second page.
      fake.answer = (_req, url) => {
        const second = url.searchParams.get('cursor') === 'page-2';
        const from = second ? PAGE : 0;
        const rows = Array.from({ length: second ? LAST_PAGE : PAGE }, (_, i) => ({ seq: from + i, name: `row ${from + i}` }));
        return { body: { data: rows, _meta: { request_id: 'req-fake', next_cursor: second ? null : 'page-2' } } };
      };
      const server = await connectV2({ baseUrl: fake.url, key: 'fake-key-0123456789' });
      try {
        const seen: number[] = [];
        let cursor: string | undefined;
        let last: Answer | undefined;
        for (let guard = 0; guard < 20; guard += 1) {
          const result = await server.client.callTool({ name: tool, arguments: { ...args, limit: 40, ...(cursor ? { cursor } : {}) } });
          assert.notEqual(result.isError, true, textOf(result));
          const answer = JSON.parse(textOf(result)) as Answer;
          assert.ok(answer.data.length <= 40, `${tool}: ${answer.data.length} rows for limit 40`);
          // Truncated only where the API's list was cut beyond reach, never for the limit.
          if (readable !== PAGE) assert.equal(answer.meta.truncated, false, `${tool}: the rows asked for all came`);
          seen.push(...answer.data.map((r) => r.seq));
          last = answer;
          if (!answer.meta.has_more || !answer.meta.next_cursor) break;
          cursor = answer.meta.next_cursor;
        }
        assert.deepEqual(
          seen,
          Array.from({ length: readable }, (_, i) => i),
          `${tool}: every row that can be read once, in order`,
        );
        assert.equal(last?.meta.next_cursor, undefined, `${tool}: no cursor after the last readable row`);
        if (readable === PAGE)
          assert.match(String(last?.meta.more_rows), /\w/, `${tool}: the answer says more rows exist that cannot be read`);
        // The first page was re-read from the cache while the cursor walked it: one request per page.
        assert.equal(fake.dataRequests().length, readable === PAGE ? 1 : 2, `${tool}: one request per upstream page`);
      } finally {
        await server.close();
      }
    });
  });
}

test('lit prints filtered here by ticker, from an upstream that names a next page the dataset has no cursor for: the answer says the rest cannot be read, never that the list is whole', async () => {
  await withFakeUpstream(async (fake) => {
    fake.answer = () => ({
      body: {
        data: Array.from({ length: PAGE }, (_, i) => ({ seq: i, ticker: i % 2 === 0 ? 'AAPL' : 'MSFT' })),
        _meta: { request_id: 'req-fake', next_cursor: 'page-2' },
      },
    });
    const server = await connectV2({ baseUrl: fake.url, key: 'fake-key-0123456789' });
    try {
      const result = await server.client.callTool({ name: 'stocks_lit_trades_recent', arguments: { tickers: 'AAPL', limit: 1000 } });
      assert.notEqual(result.isError, true, textOf(result));
      const answer = JSON.parse(textOf(result)) as Answer;
      assert.equal(answer.data.length, PAGE / 2, 'every AAPL print of the page');
      assert.equal(answer.meta.truncated, true, 'the API holds more than was read');
      assert.match(String(answer.meta.more_rows), /\w/, 'and the answer says the rest cannot be read');
      assert.equal(answer.meta.next_cursor, undefined, 'no cursor that would read the first page again');
      assert.equal(fake.dataRequests().length, 1);
    } finally {
      await server.close();
    }
  });
});
