/**
 * Issue 29's "Done when", through the built binary and the v2 SDK client, against every
 * dialect under test (test/helpers/dialect-seeds.ts: the named ones, the fixed seeds, a
 * random seed; or the one MARKET_DATA_SIM_DIALECT names). Every answer is held to what the
 * simulator itself serves, read straight in its dialect (test/helpers/upstream.ts), and to
 * invariants, never to magic numbers. A failing check prints the dialect's traits:
 * MARKET_DATA_SIM_DIALECT=seed:<n> replays it.
 *
 * The named dialects and the fixed seeds hold every check. A random seed's checks are todo:
 * reported with its traits, to be replayed, fixed, and its seed added to the fixed ones when it
 * shows a form they miss.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as z from 'zod';
import { DATASETS, generalTicker, type DatasetDefinition } from '../../src/catalog/index.js';
import { describeDialect, dialectNamed } from '../../src/simulator/dialect.js';
import { fieldName } from '../../src/simulator/dialect-body.js';
import { answersList, largestPage } from '../../src/simulator/dialect-lists.js';
import { standardScopes } from '../../src/simulator/accounts.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { dialectsUnderTest, SAMPLE_FILTERS } from '../helpers/dialect-seeds.js';
import { connectV2, textOf, type Connected } from '../helpers/mcp.js';
import { publishedNames, rowKey, sizeCap, takesPageSize, upstreamList, upstreamSnapshots, type Row } from '../helpers/upstream.js';
import { eventually } from '../helpers/wait.js';
import type { Client } from '@modelcontextprotocol/client';

type Check = 'tools' | 'answers' | 'every-row-once' | 'dealer-sessions' | 'compare' | 'open-enums' | 'registry' | 'listed-only';
/** A random seed's check, reported rather than held: replay it with MARKET_DATA_SIM_DIALECT=seed:<n>. */
const TODO = 'random seed (issue 29): reported, replay it';

/** A key of the admin account that may read the registry dataset too (the built-in keys' scopes are the catalog's). */
const KEY = 'dialects-admin-key';
/** Rows of a list followed through the server; a longer list is held to its first rows (CI time), in order and once. */
const ROWS_READ = 600;
const SERVER_ENV = { MARKET_DATA_RESULT_TOKENS: '20000', MARKET_DATA_CATALOG_REFRESH_S: '1' };
const ROOMY = { limits: { perWindow: 1_000_000, perIpPerWindow: 1_000_000 } };

interface Answer {
  data: unknown;
  failed?: { ticker?: string; measure?: string }[];
  meta: Record<string, unknown> & { next_cursor?: string; has_more?: boolean | string };
}

interface ListedTool {
  name: string;
  description?: string;
  outputSchema?: unknown;
  inputSchema: { properties?: Record<string, { maximum?: number }> };
  _meta?: Record<string, unknown>;
}

const toolName = (dataset: DatasetDefinition): string => dataset.operationId.replace('.', '_');

/** A dataset registered upstream at run time, and the same with one more parameter (a change). */
const FLOWS: DatasetDefinition = {
  operationId: 'etf.flows_by_ticker',
  path: '/v1/etf/flows-by-ticker/{ticker}',
  title: 'ETF flows',
  description: 'Daily creations and redemptions of one ETF.',
  ticker: generalTicker,
  query: { days: z.coerce.number().int().min(1).max(90).describe('Days of history, 1 to 90.').optional() },
  onDemand: false,
  cacheClass: 'daily',
};
const FLOWS_CHANGED: DatasetDefinition = {
  ...FLOWS,
  query: { ...FLOWS.query, min_flow_usd: z.coerce.number().min(0).describe('Smallest net flow, USD.').optional() },
};

function sampleArgs(dataset: DatasetDefinition): Record<string, string> {
  return {
    ...(SAMPLE_FILTERS[dataset.operationId] ?? {}),
    ...(dataset.ticker ? { ticker: dataset.path.includes('dealer') ? 'SPY' : 'AAPL' } : {}),
  };
}

for (const { name, random } of dialectsUnderTest()) {
  const dialect = dialectNamed(name);
  const traits = describeDialect(dialect);
  const todo = (check: Check): { todo?: string } => (random ? { todo: `${TODO} (${check})` } : {});

  describe(`${name}`, () => {
    let sim: RunningSimulator;
    let server: Connected<Client>;
    /** Upstream requests when the server process started. */
    let sentAtStart = 0;
    const at = Date.now();
    before(async () => {
      sim = await startSimulator({
        ...ROOMY,
        materializationMs: 0,
        dialect: name,
        now: () => at,
        keys: [{ key: KEY, accountId: 'acct_admin', scopes: standardScopes([...DATASETS, FLOWS]), revoked: false }],
      });
      server = await connectV2({
        baseUrl: sim.url,
        key: KEY,
        env: { MARKET_DATA_RESULT_TOKENS: '20000', MARKET_DATA_CATALOG_REFRESH_S: '1' },
      });
    });
    after(async () => {
      await server.close();
      await sim.close();
    });

    const tools = async (): Promise<ListedTool[]> => (await server.client.listTools()).tools as ListedTool[];
    const call = async (tool: string, args: Record<string, unknown>): Promise<Answer> => {
      // An upstream without rate headers holds the server to the spec's 60 requests a minute: a
      // fresh process (a fresh local window) now and then tests the answers, not that window.
      if (!dialect.traits.rateHeaders && sim.api.requests.length - sentAtStart > 40) {
        await server.close();
        server = await connectV2({ baseUrl: sim.url, key: KEY, env: SERVER_ENV });
        sentAtStart = sim.api.requests.length;
      }
      const result = await server.client.callTool({ name: tool, arguments: args });
      assert.notEqual(result.isError, true, `${traits}\n${tool} ${JSON.stringify(args)}: ${textOf(result).slice(0, 400)}`);
      return result.structuredContent as Answer;
    };

    test(`${name}: the curated tools keep their names, reviewed text, output schema and view`, todo('tools'), async () => {
      const listed = await tools();
      for (const dataset of DATASETS) {
        const tool = listed.find((t) => t.name === toolName(dataset));
        assert.ok(tool, `${traits}\n${toolName(dataset)} listed`);
        assert.ok(tool.description?.startsWith(dataset.description), `${traits}\n${tool.name} keeps its reviewed text`);
        assert.doesNotMatch(tool.description ?? '', /not reviewed/, `${traits}\n${tool.name}`);
      }
      const dealer = listed.find((t) => t.name === 'derived_dealer_gex_history');
      assert.ok(dealer?.outputSchema, `${traits}\nthe dealer output schema stays`);
      assert.ok(JSON.stringify(dealer._meta ?? {}).includes('ui://'), `${traits}\nthe dealer view stays`);
    });

    test(`${name}: every tool answers valid input with data`, todo('answers'), async () => {
      for (const dataset of DATASETS) {
        const answer = await call(toolName(dataset), sampleArgs(dataset));
        const data = answer.data;
        const empty =
          data === null ||
          data === undefined ||
          (Array.isArray(data) && data.length === 0) ||
          (typeof data === 'object' && Object.keys(data).length === 0);
        assert.ok(!empty, `${traits}\n${toolName(dataset)} answers with data: ${JSON.stringify(answer).slice(0, 300)}`);
      }
    });

    test(`${name}: following next_cursor reads every row of every list exactly once`, todo('every-row-once'), async () => {
      for (const dataset of DATASETS.filter((d) => answersList(d))) {
        const args = sampleArgs(dataset);
        const filters = Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'ticker'));
        const upstream = await upstreamList(sim, dataset.path, {
          ticker: args['ticker'] ?? 'AAPL',
          filters,
          atMost: ROWS_READ + 1,
        });
        const whole = upstream.rows.length <= ROWS_READ;
        const expected = upstream.rows.slice(0, ROWS_READ);
        // The largest page the tool takes: the document's where it publishes a page size (its bound replaces
        // ours: seed 3072634's options chain took 500 where ours takes 100), else ours.
        const published = takesPageSize(sim, dataset.path) ? sizeCap(sim, dataset.path) : undefined;
        const max = published !== undefined && published < Number.MAX_SAFE_INTEGER ? published : largestPage(dataset);
        const rows: unknown[] = [];
        let answer = await call(toolName(dataset), { ...args, ...(max ? { limit: max } : {}) });
        for (let guard = 0; ; guard += 1) {
          assert.ok(
            Array.isArray(answer.data),
            `${traits}\n${toolName(dataset)} answers rows: ${JSON.stringify(answer.data).slice(0, 200)}`,
          );
          rows.push(...(answer.data as unknown[]));
          if (!answer.meta.next_cursor || answer.meta.has_more === false || rows.length >= ROWS_READ || guard > 200) break;
          answer = await call(toolName(dataset), {
            ...(dataset.ticker ? { ticker: args['ticker'] } : {}),
            cursor: answer.meta.next_cursor,
          });
        }
        const label = `${traits}\n${toolName(dataset)} (${rows.length} rows read of ${expected.length}, has_more ${String(answer.meta.has_more)})`;
        assert.deepEqual(
          rows.slice(0, expected.length).map(rowKey),
          expected.map(rowKey),
          `${label}: the upstream's rows, once, in its order`,
        );
        if (whole) assert.equal(rows.length, expected.length, `${label}: no row twice, none past the list`);
        if (whole && upstream.cut) assert.notEqual(answer.meta.has_more, false, `${label}: a list the upstream cut is not called whole`);
        if (whole && !upstream.cut) assert.notEqual(answer.meta.has_more, true, `${label}: nothing more once every row is read`);
      }
    });

    test(`${name}: a dealer session's levels and three sessions' summaries are whole`, todo('dealer-sessions'), async () => {
      const snapshots = await upstreamSnapshots(sim, 'SPY', KEY);
      const perSession = new Map<string, number>();
      for (const s of snapshots) perSession.set(String(s['session_date_et']), (perSession.get(String(s['session_date_et'])) ?? 0) + 1);
      assert.equal(perSession.size, 3, `${traits}\nthe upstream holds three sessions`);
      for (const [session, count] of perSession) {
        const levels = (await call('derived_dealer_gex_history', { ticker: 'SPY', view: 'levels', session_date: session })).data as {
          sessions: { session_date_et: string; rows: unknown[] }[];
        };
        assert.equal(levels.sessions[0]?.session_date_et, session, `${traits}\nlevels of ${session}`);
        assert.equal(levels.sessions[0]?.rows.length, count, `${traits}\nevery snapshot of ${session}`);
      }
      const summaries = (await call('derived_dealer_gex_history', { ticker: 'SPY', view: 'sessions' })).data as {
        session_summaries: { session_date_et: string; snapshots: number }[];
      };
      assert.deepEqual(
        summaries.session_summaries.map((s) => [s.session_date_et, s.snapshots]),
        [...perSession.entries()],
        `${traits}\nthree sessions, each summarised from all its snapshots`,
      );
    });

    test(`${name}: volatility_compare fills every value or names what it could not read`, todo('compare'), async () => {
      const tickers = ['AAPL', 'MSFT', 'SPY'];
      const answer = await call('volatility_compare', { tickers: tickers.join(',') });
      const rows = answer.data as Row[];
      const said = JSON.stringify([answer.failed ?? [], answer.meta['notice'] ?? '']);
      const num = (value: unknown): number | undefined =>
        value === null || value === undefined || value === '' ? undefined : Number(value);
      for (const ticker of tickers) {
        const row = rows.find((r) => r['ticker'] === ticker);
        if (!row) {
          assert.ok(said.includes(ticker), `${traits}\n${ticker}: neither a row nor named: ${said}`);
          continue;
        }
        const skew = (await upstreamList(sim, '/v1/volatility/risk-reversal-skew/{ticker}', { ticker, key: KEY })).rows;
        const dateField = fieldName(dialect, 'volatility.risk_reversal_skew', 'date');
        skew.sort((a, b) => String(b[dateField]).localeCompare(String(a[dateField])));
        const rr = fieldName(dialect, 'volatility.risk_reversal_skew', 'rr25');
        const anomaly = (await upstreamList(sim, '/v1/volatility/anomaly/{ticker}', { ticker, key: KEY })).rows[0] ?? {};
        const score = (field: string): number | undefined => num(anomaly[fieldName(dialect, 'volatility.anomaly', field)]);
        const expected: Record<string, number | undefined> = {
          rr25: num(skew[0]?.[rr]),
          atm_iv30: num(skew[0]?.[fieldName(dialect, 'volatility.risk_reversal_skew', 'atm_iv30')]),
          anomaly_score: score('anomaly_score'),
          iv_percentile_1y: score('iv_percentile_1y'),
          iv30: score('iv30'),
        };
        for (const [field, value] of Object.entries(expected)) {
          if (num(row[field]) === undefined)
            assert.ok(said.includes(ticker) && said.includes(field), `${traits}\n${ticker} ${field}: blank and not named: ${said}`);
          else assert.equal(num(row[field]), value, `${traits}\n${ticker} ${field}: the upstream's value`);
        }
      }
    });

    test(`${name}: the open enums reach the agent as the upstream sent them`, todo('open-enums'), async () => {
      const upstream = await upstreamSnapshots(sim, 'SPY', KEY);
      const full = (await call('derived_dealer_gex_history', { ticker: 'SPY', view: 'full', limit: 1 })).data as Row[];
      const newest = upstream[0] ?? {};
      assert.equal(full[0]?.['state'], newest['state'], `${traits}\nstate as sent`);
      const types = (row: Row | undefined): unknown[] => ((row?.['strikes'] ?? []) as Row[]).map((s) => s['node_type']);
      assert.deepEqual(types(full[0]), types(newest), `${traits}\nnode_type as sent`);
    });

    test(`${name}: no request carries a parameter the document does not list`, todo('listed-only'), () => {
      const templates = sim.api.datasets.map((d) => ({ path: d.path, match: new RegExp(`^${d.path.replace('{ticker}', '[^/]+')}$`) }));
      let checked = 0;
      for (const request of sim.api.requests) {
        const template = templates.find((t) => t.match.test(request.path));
        const listed = template ? publishedNames(sim, template.path) : new Set<string>();
        for (const param of new URLSearchParams(request.query).keys()) {
          assert.ok(listed.has(param), `${traits}\n${request.path}${request.query}: "${param}" is not in the document`);
          checked += 1;
        }
      }
      assert.ok(checked > 0, `${traits}\nthe calls above sent parameters to check`);
    });
    test(`${name}: a registry dataset in this form appears, changes, and is retired only with evidence`, todo('registry'), async () => {
      const flows = async (): Promise<ListedTool | undefined> =>
        (await tools()).find((t) => t.description?.includes('creations and redemptions'));
      sim.api.registerDataset(FLOWS);
      await eventually(async () => (await flows()) !== undefined, `${traits}\nthe registered dataset becomes a tool`);
      const tool = await flows();
      assert.ok(tool);
      const answer = await call(tool.name, { ticker: 'SPY' });
      assert.ok(Array.isArray(answer.data) && answer.data.length > 0, `${traits}\nit answers with data`);
      sim.api.registerDataset(FLOWS_CHANGED);
      await eventually(
        async () => Object.keys((await flows())?.inputSchema.properties ?? {}).some((p) => /min.?flow/i.test(p)),
        `${traits}\nthe change reaches the tool`,
      );
      // Retired while the document cannot be read: no evidence, the tool stays.
      sim.api.documentOutage = true;
      sim.api.retireDataset(FLOWS.path);
      const reads = (): number => sim.api.requests.filter((r) => r.path === '/v1/openapi.json').length;
      const mark = reads();
      await eventually(() => reads() >= mark + 2, 'two refreshes against the outage');
      assert.ok(await flows(), `${traits}\nno retirement without a document`);
      sim.api.documentOutage = false;
      await eventually(async () => (await flows()) === undefined, `${traits}\nretired once a fresh document leaves it out`);
    });
  });
}
