/** A dealer snapshot whose ticker is not the one asked for is never passed on as that ticker's. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payloadParts, rowsIn } from '../../src/api/payload-parts.js';
import { get, withSimulator } from '../helpers/http.js';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';
import { catalogDocument, withFakeUpstream } from '../helpers/fake-upstream.js';
import { toEt } from '../../src/catalog/market-calendar.js';

const KEY = 'fake-key-0123456789';
const TOOL = 'derived_dealer_gex_history';

test("a dealer answer of another ticker is refused (RESPONSE_INVALID); a page mixing tickers keeps only the asked one's, with a notice", async () => {
  await withSimulator({}, async (sim) => {
    const page = await get(sim, '/v1/derived/dealer-gex/SPY/history?limit=4');
    const spy = (rowsIn(payloadParts(page.body).data) ?? []) as { ticker: string; snapshot_at: string }[];
    assert.ok(spy.length === 4 && spy.every((s) => s.ticker === 'SPY'));
    await withFakeUpstream(async (fake) => {
      fake.answer = (_req, url) => {
        const asked = url.pathname.split('/')[4];
        // QQQ gets SPY's snapshots; IWM gets one of its own between SPY's.
        const rows = asked === 'IWM' ? [{ ...spy[0], ticker: 'IWM' }, ...spy.slice(1)] : spy;
        return { body: { data: rows, _meta: { request_id: 'req-fake', next_cursor: null } } };
      };
      const server = await connectV2({ baseUrl: fake.url, key: KEY });
      try {
        const refused = errorOf(await server.client.callTool({ name: TOOL, arguments: { ticker: 'QQQ' } }));
        assert.equal(refused.code, 'RESPONSE_INVALID');
        assert.match(refused.message, /another ticker/);

        const mixed = await server.client.callTool({ name: TOOL, arguments: { ticker: 'IWM', view: 'full' } });
        assert.notEqual(mixed.isError, true, textOf(mixed));
        const answer = mixed.structuredContent as { data: { ticker: string }[]; meta: { notice?: string } };
        assert.deepEqual(
          answer.data.map((s) => s.ticker),
          ['IWM'],
          "only the asked ticker's snapshot",
        );
        assert.match(answer.meta.notice ?? '', /another ticker/);
      } finally {
        await server.close();
      }
    });
  });
});

test('a dealer history whose document lists no cursor is read once: a next page it cannot reach is never re-read as the next', async () => {
  await withSimulator({}, async (sim) => {
    // Ten snapshots of one whole session: today's may hold fewer, early in the day.
    const page = await get(sim, '/v1/derived/dealer-gex/SPY/history?limit=60');
    // Ten snapshots of one session, the newest that holds ten: today's holds fewer early in the day.
    const bySession = new Map<string, unknown[]>();
    for (const row of rowsIn(payloadParts(page.body).data) ?? []) {
      const date = toEt(Date.parse(String((row as { snapshot_at?: unknown }).snapshot_at))).date;
      bySession.set(date, [...(bySession.get(date) ?? []), row]);
    }
    const spy = [...bySession.values()].find((rows) => rows.length >= 10)?.slice(0, 10) ?? [];
    assert.equal(spy.length, 10, 'ten snapshots of one session');
    await withFakeUpstream(async (fake) => {
      const doc = catalogDocument();
      const dealer = doc.paths['/v1/derived/dealer-gex/{ticker}/history'];
      assert.ok(dealer);
      dealer.get.parameters = dealer.get.parameters.filter((p) => p['in'] === 'path');
      fake.document = doc;
      fake.answer = () => ({ body: { data: spy, _meta: { request_id: 'r', next_cursor: 'unreachable' } } });
      const server = await connectV2({ baseUrl: fake.url, key: KEY });
      try {
        const result = await server.client.callTool({ name: TOOL, arguments: { ticker: 'SPY', view: 'levels' } });
        assert.notEqual(result.isError, true, textOf(result));
        const answer = result.structuredContent as { data: { sessions: { rows: string[][] }[] }; meta: { units?: number } };
        const times = answer.data.sessions.flatMap((s) => s.rows.map((r) => r[0]));
        assert.equal(times.length, spy.length, 'the snapshots of the one page read');
        assert.equal(new Set(times).size, times.length, 'no snapshot twice');
        assert.equal(fake.dataRequests().length, 1, 'one request');
        assert.deepEqual(
          fake.dataRequests().map((r) => r.path.includes('?')),
          [false],
          'no parameter the document does not list',
        );
        assert.equal(answer.meta.units, 1);
      } finally {
        await server.close();
      }
    });
  });
});
