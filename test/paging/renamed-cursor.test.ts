/** A dataset whose upstream pages with its own cursor name and wrapper is read page after page, every row once. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, textOf } from '../helpers/mcp.js';
import { catalogDocument, withFakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789';
const PATH = '/v1/congress/recent-trades';
const ROWS = Array.from({ length: 23 }, (_, i) => ({ member: `Member ${i}`, ticker: 'AAPL', side: i % 2 ? 'buy' : 'sell' }));
const PAGE = 10;

test('an upstream cursor named page_token, rows under results and meta.next: following next_cursor reads every row once', async () => {
  await withFakeUpstream(async (fake) => {
    const doc = catalogDocument();
    const trades = doc.paths[PATH];
    assert.ok(trades);
    trades.get.parameters = [{ name: 'page_token', in: 'query', required: false, schema: { type: 'string', maxLength: 64 } }];
    fake.document = doc;
    fake.answer = (_req, url) => {
      const unknown = [...url.searchParams.keys()].filter((k) => k !== 'page_token');
      if (unknown.length > 0)
        return {
          status: 400,
          body: {
            error: { code: 'VALIDATION_ERROR', tags: [], message: `Unknown parameter "${unknown[0]}".`, docs_url: 'x', request_id: null },
          },
        };
      const start = Number(url.searchParams.get('page_token') ?? '0');
      const next = start + PAGE < ROWS.length ? String(start + PAGE) : undefined;
      return { body: { results: ROWS.slice(start, start + PAGE), meta: { request_id: 'r', ...(next ? { next } : {}) } } };
    };
    const server = await connectV2({ baseUrl: fake.url, key: KEY });
    try {
      const seen: unknown[] = [];
      let cursor: string | undefined;
      for (let guard = 0; guard < 10; guard += 1) {
        const result = await server.client.callTool({ name: 'congress_recent_trades', arguments: cursor ? { cursor } : {} });
        assert.notEqual(result.isError, true, textOf(result));
        const answer = result.structuredContent as { data: unknown[]; meta: { next_cursor?: string; has_more?: boolean; units?: number } };
        seen.push(...answer.data);
        cursor = answer.meta.has_more ? answer.meta.next_cursor : undefined;
        if (!cursor) break;
      }
      assert.deepEqual(seen, ROWS, 'every row once, in order');
      const sent = fake.dataRequests().map((r) => new URL(r.path, 'http://x').searchParams.get('page_token'));
      assert.deepEqual(sent, [null, '10', '20'], "each upstream page once, under the upstream's own cursor name");
    } finally {
      await server.close();
    }
  });
});
