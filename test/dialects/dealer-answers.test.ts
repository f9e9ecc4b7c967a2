/**
 * The dealer history as an upstream may really send it (trial of issue 29): its cursor
 * parameter called `after` or `next_cursor` (the spec fixes `_meta.next_cursor`, not the
 * parameter's name), numbers as strings, and open values the spec leaves unlisted (`CLOSED`,
 * `KING`). A session's levels and three sessions' summaries are whole (counted against the
 * history read straight from the upstream), the call answers rather than RESPONSE_INVALID
 * after the unit was charged, and open values reach the agent as sent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';
import { dialectSnapshots } from '../helpers/answers-harness.js';
import { catalogDocument, withFakeUpstream, type FakeAnswer } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789';
const PATH = '/v1/derived/dealer-gex/SPY/history';

type Raw = Record<string, unknown>;

/** Every number as text, `state` and `node_type` upper case: what the spec does not forbid. */
function asSent(value: unknown, key = ''): unknown {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' && (key === 'state' || key === 'node_type')) return value.toUpperCase();
  if (Array.isArray(value)) return value.map((item) => asSent(item));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asSent(v, k)]));
  return value;
}

function refuse(message: string): FakeAnswer {
  return { status: 400, body: { error: { code: 'VALIDATION_ERROR', tags: [], message, docs_url: 'x', request_id: null } } };
}

for (const cursorName of ['after', 'next_cursor']) {
  test(`a history paged by "${cursorName}" with numbers as strings: whole sessions, open values as sent`, async () => {
    await withSimulator({ dialect: 'spec', limits: { perWindow: 100_000, perIpPerWindow: 100_000 } }, async (sim) => {
      const history = (await dialectSnapshots(sim, 'SPY')) as unknown as Raw[];
      const sent = history.map((s) => asSent(s) as Raw);
      const bySession = new Map<string, number>();
      for (const s of history) bySession.set(String(s['session_date_et']), (bySession.get(String(s['session_date_et'])) ?? 0) + 1);
      assert.equal(bySession.size, 3, 'the upstream holds three sessions');
      await withFakeUpstream(async (fake) => {
        const doc = catalogDocument();
        const dealer = doc.paths['/v1/derived/dealer-gex/{ticker}/history'];
        assert.ok(dealer);
        dealer.get.parameters = [
          dealer.get.parameters.find((p) => p['in'] === 'path') ?? {},
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 60 } },
          { name: cursorName, in: 'query', required: false, schema: { type: 'string', maxLength: 64 } },
        ];
        fake.document = doc;
        fake.answer = (_req, url) => {
          if (url.pathname !== PATH) return refuse('only SPY is served here');
          const unknown = [...url.searchParams.keys()].filter((k) => k !== 'limit' && k !== cursorName);
          if (unknown.length > 0) return refuse(`Unknown parameter "${unknown[0]}".`);
          const limit = Number(url.searchParams.get('limit') ?? 60);
          const start = Number(url.searchParams.get(cursorName) ?? 0);
          const next = start + limit < sent.length ? String(start + limit) : null;
          return {
            body: { data: sent.slice(start, start + limit), _meta: { request_id: 'r', next_cursor: next, truncated: next !== null } },
          };
        };
        const server = await connectV2({ baseUrl: fake.url, key: KEY });
        try {
          const call = async (args: Record<string, unknown>): Promise<{ data: unknown; meta: Record<string, unknown> }> => {
            const result = await server.client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', ...args } });
            assert.notEqual(result.isError, true, textOf(result));
            return result.structuredContent as { data: unknown; meta: Record<string, unknown> };
          };
          const sessions = await call({ view: 'sessions' });
          const summaries = (sessions.data as { session_summaries: { session_date_et: string; snapshots: number; state: string }[] })
            .session_summaries;
          assert.deepEqual(
            Object.fromEntries(summaries.map((s) => [s.session_date_et, s.snapshots])),
            Object.fromEntries(bySession),
            'three sessions, each summarised from every snapshot it holds',
          );
          for (const [session, count] of bySession) {
            const levels = await call({ view: 'levels', session_date: session });
            const rows = (levels.data as { sessions: { session_date_et: string; rows: unknown[] }[] }).sessions.flatMap((s) => s.rows);
            assert.equal(rows.length, count, `${session}: every snapshot of the session`);
            assert.equal(levels.meta['covers'], `session ${session} (ET)`);
            assert.equal(levels.meta['truncated'], false);
          }
          const latest = await call({});
          const newest = (
            latest.data as { state: string; state_normalized?: string; strikes: { node_type: string }[]; spot_usd: unknown }[]
          )[0];
          assert.ok(newest);
          assert.equal(newest.state, String(history[0]?.['state']).toUpperCase(), 'the state as sent');
          assert.equal(newest.state_normalized, history[0]?.['state'], 'the known state beside it');
          assert.equal(typeof newest.spot_usd, 'number', 'numbers sent as text are read as numbers');
          assert.ok(
            newest.strikes.some((s) => s.node_type === 'KING'),
            'an unknown node type is kept as sent, not replaced by the sign',
          );
        } finally {
          await server.close();
        }
      });
    });
  });
}
