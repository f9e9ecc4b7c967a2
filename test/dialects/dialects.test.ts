/**
 * The built server over stdio against every dialect of the spec the simulator speaks
 * (operation ids, dealer paging, wrappers and headers each filled differently): the
 * curated tools stay ours and every one answers; the dealer history reads the upstream's
 * pages under the upstream's own names, whole and once.
 */
import { NAME_TOOL_NAMES } from '../../src/mcp/tools/name-tools.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATASETS } from '../../src/catalog/index.js';
import { DIALECT_NAMES, type DialectName } from '../../src/simulator/dialect.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { dialectSnapshots, stillMarket } from '../helpers/answers-harness.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';
import { publishedNames } from '../helpers/upstream.js';

const TOOL = 'derived_dealer_gex_history';
const ROOMY = { limits: { perWindow: 100_000, perIpPerWindow: 100_000 } };
const SAMPLE_ARGS: Record<string, Record<string, unknown>> = {
  options_chain_history: { ticker: 'SPY', expiration: '2026-12-18', right: 'C' },
  stocks_sector_tickers: { sector: 'Energy' },
  market_correlations: { tickers: 'SPY,QQQ' },
  macro_forex_rate: { pair: 'EURUSD' },
};

interface ListedTool {
  name: string;
  description?: string;
  outputSchema?: unknown;
  _meta?: Record<string, unknown>;
}

interface Answer {
  data: unknown;
  meta: Record<string, unknown> & { next_cursor?: string; has_more?: boolean };
}

interface Levels {
  sessions: { session_date_et: string; rows: [string, ...number[]][] }[];
}

const toolName = (operationId: string): string => operationId.replace('.', '_');

/** Requests the dealer tool sent upstream since `mark`, with their query. */
function dealerRequests(sim: RunningSimulator, mark: number): URLSearchParams[] {
  return sim.api.requests
    .slice(mark)
    .filter((r) => r.path.startsWith('/v1/derived/dealer-gex/'))
    .map((r) => new URLSearchParams(r.query));
}

async function inDialect(
  dialect: DialectName,
  run: (
    sim: RunningSimulator,
    call: (args: Record<string, unknown>, name?: string) => Promise<Answer>,
    listTools: () => Promise<ListedTool[]>,
  ) => Promise<void>,
): Promise<void> {
  await withSimulator({ ...ROOMY, ...stillMarket(), dialect }, async (sim) => {
    const server = await connectV2({ baseUrl: sim.url, key: 'sim-admin-key', env: { MARKET_DATA_RESULT_TOKENS: '20000' } });
    try {
      const call = async (args: Record<string, unknown>, name = TOOL): Promise<Answer> => {
        const result = await server.client.callTool({ name, arguments: args });
        assert.notEqual(result.isError, true, `${dialect} ${name}: ${textOf(result).slice(0, 400)}`);
        return result.structuredContent as Answer;
      };
      await run(sim, call, async () => (await server.client.listTools()).tools as ListedTool[]);
    } finally {
      await server.close();
    }
  });
}

for (const dialect of DIALECT_NAMES) {
  test(`${dialect}: the 22 curated tools keep their names, reviewed text, dealer output schema and view, and each answers with data`, async () => {
    await inDialect(dialect, async (sim, call, listTools) => {
      const tools = await listTools();
      for (const dataset of DATASETS) {
        const name = toolName(dataset.operationId);
        const tool = tools.find((t) => t.name === name);
        assert.ok(tool, `${dialect}: tool ${name} listed`);
        assert.ok(tool.description?.startsWith(dataset.description), `${dialect}: ${name} keeps its reviewed text`);
        assert.doesNotMatch(tool.description ?? '', /not reviewed/);
        const answer = await call(SAMPLE_ARGS[name] ?? (dataset.ticker ? { ticker: 'AAPL' } : {}), name);
        const data = answer.data;
        assert.ok(
          data !== null && data !== undefined && (!Array.isArray(data) || data.length > 0),
          `${dialect}: ${name} answers with data`,
        );
      }
      const dealer = tools.find((t) => t.name === TOOL);
      assert.ok(dealer?.outputSchema, `${dialect}: the dealer output schema stays`);
      assert.ok(JSON.stringify(dealer._meta ?? {}).includes('ui://'), `${dialect}: the dealer view stays`);
      assert.equal(
        tools
          .filter((t) => !DATASETS.some((d) => toolName(d.operationId) === t.name))
          .map((t) => t.name)
          .join(),
        ['api_status', 'volatility_compare', ...NAME_TOOL_NAMES].join(),
        `${dialect}: nothing imported beside the catalog`,
      );
      assert.ok(
        sim.api.requests.some((r) => r.path === '/v1/openapi.json'),
        'the live document was read',
      );
    });
  });

  test(`${dialect}: the default dealer call is the newest snapshot in one request; a session's levels come back whole; only listed parameters are sent`, async () => {
    await inDialect(dialect, async (sim, call) => {
      const upstream = await dialectSnapshots(sim, 'SPY');
      const mark = sim.api.requests.length;
      const latest = await call({ ticker: 'SPY' });
      const sent = dealerRequests(sim, mark);
      assert.equal(sent.length, 1, `${dialect}: one upstream request`);
      assert.equal(latest.meta['units'], 1, `${dialect}: the answer says it spent one unit`);
      assert.equal((latest.data as { snapshot_at: string }[])[0]?.snapshot_at, upstream[0]?.snapshot_at, 'the newest snapshot');
      assert.equal(latest.meta.has_more, true);
      const listed = publishedNames(sim, '/v1/derived/dealer-gex/{ticker}/history');

      const sessions = [...new Set(upstream.map((s) => s.session_date_et))];
      for (const session of sessions) {
        const before = sim.api.requests.length;
        const answer = await call({ ticker: 'SPY', view: 'levels', session_date: session });
        const levels = answer.data as Levels;
        const expected = upstream.filter((s) => s.session_date_et === session).length;
        assert.equal(levels.sessions[0]?.rows.length, expected, `${dialect} ${session}: every snapshot of the session`);
        assert.equal(answer.meta.has_more, false, `${dialect} ${session}: nothing left of the session`);
        const requests = dealerRequests(sim, before);
        assert.equal(answer.meta['units'], requests.length, `${dialect} ${session}: units are the requests sent`);
        for (const query of requests)
          for (const name of query.keys()) assert.ok(listed.has(name), `${dialect}: sent "${name}", which the document does not list`);
      }
    });
  });

  test(`${dialect}: following next_cursor from the default answer and from view=full limit=60 reads the whole history once`, async () => {
    await inDialect(dialect, async (sim, call) => {
      const snapshots = await dialectSnapshots(sim, 'SPY');
      const upstream = snapshots.map((s) => s.snapshot_at);
      const upstreamSessions = snapshots.map((s) => s.session_date_et);
      const full = await call({ ticker: 'SPY', view: 'full', limit: 60 });
      assert.equal(full.meta.has_more, true, 'older snapshots remain and the answer says so');
      assert.equal(typeof full.meta['remaining'], 'string');
      const seen = (full.data as { snapshot_at: string }[]).map((s) => s.snapshot_at);
      let cursor = full.meta.next_cursor;
      for (let guard = 0; cursor && guard < 40; guard += 1) {
        const next = await call({ ticker: 'SPY', cursor });
        seen.push(...(next.data as { snapshot_at: string }[]).map((s) => s.snapshot_at));
        cursor = next.meta.has_more ? next.meta.next_cursor : undefined;
      }
      assert.deepEqual(seen, upstream, `${dialect}: every snapshot once, newest first`);

      // The newest session's levels, whole, say that older sessions remain, and the cursor reads the next one.
      const newest = await call({ ticker: 'SPY', view: 'levels' });
      assert.equal(newest.meta.has_more, true, `${dialect}: older sessions remain`);
      assert.match(String(newest.meta['remaining']), /older sessions/);
      const older = await call({ ticker: 'SPY', cursor: newest.meta.next_cursor });
      const [newestSession, olderSession] = [...new Set(upstreamSessions)];
      assert.deepEqual(
        [(newest.data as Levels).sessions.map((s) => s.session_date_et), (older.data as Levels).sessions.map((s) => s.session_date_et)],
        [[newestSession], [olderSession]],
        `${dialect}: one session per answer, newest first`,
      );

      // From the default answer: levels rows of every session, none twice.
      const latest = await call({ ticker: 'SPY' });
      const first = await call({ ticker: 'SPY', view: 'levels', limit: 100 });
      assert.ok(latest.meta.next_cursor);
      const rows = (first.data as Levels).sessions.flatMap((s) => s.rows.map((r) => `${s.session_date_et} ${r[0]}`));
      cursor = first.meta.next_cursor;
      for (let guard = 0; cursor && guard < 40; guard += 1) {
        const next = await call({ ticker: 'SPY', cursor });
        rows.push(...(next.data as Levels).sessions.flatMap((s) => s.rows.map((r) => `${s.session_date_et} ${r[0]}`)));
        cursor = next.meta.has_more ? next.meta.next_cursor : undefined;
      }
      assert.equal(new Set(rows).size, rows.length, `${dialect}: no row twice`);
      assert.equal(rows.length, upstream.length, `${dialect}: no row skipped`);
    });
  });
}
