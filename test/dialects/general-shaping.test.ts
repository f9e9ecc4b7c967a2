/**
 * The general tools against every dialect, through the built binary over stdio: a tool
 * keeps its own parameter names whatever the upstream calls them (`pageSize`, `symbols`,
 * `startDate`...); what the upstream offers is sent under its names, what it does not
 * (a page size, a ticker list, a side, a range) is applied here over its pages; nothing
 * its document does not list is ever sent; following next_cursor reads the whole set once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payloadParts, rowsIn } from '../../src/api/payload-parts.js';
import { DATASETS } from '../../src/catalog/index.js';
import { toolInputJsonSchema } from '../../src/mcp/arguments/input-schema.js';
import { toolNameOf } from '../../src/mcp/tools/dataset-tool.js';
import { latestSession, previousTradingDay } from '../../src/catalog/market-calendar.js';
import { DIALECT_NAMES, type DialectName } from '../../src/simulator/dialect.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { get, withSimulator } from '../helpers/http.js';
import { connectV1, errorOf, textOf } from '../helpers/mcp.js';

const ROOMY = { limits: { perWindow: 100_000, perIpPerWindow: 100_000 } };
const KEY = 'sim-admin-key';
type Row = Record<string, unknown>;

interface Answer {
  data: unknown;
  meta: Record<string, unknown> & { next_cursor?: string; has_more?: boolean; units?: number };
}

interface Operation {
  parameters?: { name: string; in: string; schema?: { type?: string; maximum?: number } }[];
}

/** The query parameters the dialect's document lists, by path. */
async function listedParameters(sim: RunningSimulator): Promise<Map<string, Operation['parameters']>> {
  const doc = (await get(sim, '/v1/openapi.json', KEY)).body as { paths: Record<string, { get: Operation }> };
  return new Map(Object.entries(doc.paths).map(([path, item]) => [path, (item.get.parameters ?? []).filter((p) => p.in === 'query')]));
}

/** Every row the upstream holds for a path, read straight from the simulator in its own dialect: its largest page, its cursor. */
async function upstreamRows(sim: RunningSimulator, path: string, listed: Operation['parameters']): Promise<Row[]> {
  const size = (listed ?? []).find((p) => ['limit', 'pageSize', 'page_size'].includes(p.name));
  const cursorName = (listed ?? []).find((p) => ['cursor', 'pageToken', 'page_token'].includes(p.name))?.name;
  const rows: Row[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 200; page += 1) {
    const query = new URLSearchParams();
    if (size?.schema?.maximum !== undefined) query.set(size.name, String(size.schema.maximum));
    if (cursor && cursorName) query.set(cursorName, cursor);
    const response = await get(sim, `${path}?${query.toString()}`, KEY);
    assert.equal(response.status, 200, JSON.stringify(response.body).slice(0, 300));
    const parts = payloadParts(response.body);
    rows.push(...((rowsIn(parts.data) ?? []) as Row[]));
    cursor = cursorName ? parts.nextCursor : undefined;
    if (!cursor) break;
  }
  return rows;
}

async function inDialect(
  dialect: DialectName,
  run: (sim: RunningSimulator, call: (name: string, args: Record<string, unknown>) => Promise<Answer>) => Promise<void>,
): Promise<void> {
  await withSimulator({ ...ROOMY, dialect }, async (sim) => {
    const server = await connectV1({ baseUrl: sim.url, key: KEY });
    try {
      const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
        const result = await server.client.callTool({ name, arguments: args });
        assert.notEqual(result.isError, true, `${dialect} ${name}: ${textOf(result as never).slice(0, 400)}`);
        return result.structuredContent as Answer;
      };
      await run(sim, call);
      // Whatever the calls were, nothing went upstream that the document does not list.
      const listed = await listedParameters(sim);
      const sent = sim.api.requests.filter((r) => listed.has(r.path));
      assert.ok(sent.length > 0, `${dialect}: the calls reached the upstream`);
      for (const request of sent) {
        const names = new Set((listed.get(request.path) ?? []).map((p) => p.name));
        for (const name of new URLSearchParams(request.query).keys())
          assert.ok(names.has(name), `${dialect}: sent "${name}" to ${request.path}, which its document does not list`);
      }
    } finally {
      await server.close();
    }
  });
}

/** Follows next_cursor from `first` to the end; checks units and has_more on each answer. */
async function follow(
  sim: RunningSimulator,
  call: (name: string, args: Record<string, unknown>) => Promise<Answer>,
  name: string,
  path: string,
  args: Record<string, unknown>,
  label: string,
): Promise<Row[]> {
  const rows: Row[] = [];
  let next: Record<string, unknown> | undefined = args;
  const requests = (): number => sim.api.requests.filter((r) => r.path === path).length;
  for (let guard = 0; next && guard < 80; guard += 1) {
    const before = requests();
    const answer = await call(name, next);
    assert.equal(answer.meta.units, requests() - before, `${label}: units are the upstream requests the answer sent`);
    assert.equal(answer.meta.has_more, answer.meta.next_cursor !== undefined, `${label}: has_more says whether a cursor follows`);
    rows.push(...(answer.data as Row[]));
    next = answer.meta.next_cursor ? { cursor: answer.meta.next_cursor } : undefined;
  }
  assert.equal(next, undefined, `${label}: the walk ends`);
  return rows;
}

const keyOf = (row: Row): string => JSON.stringify(row);

for (const dialect of DIALECT_NAMES) {
  test(`${dialect}: every curated tool takes the parameters it takes against the spec's own upstream, whatever the upstream calls them`, async () => {
    await withSimulator({ ...ROOMY, dialect }, async (sim) => {
      const server = await connectV1({ baseUrl: sim.url, key: KEY });
      try {
        const tools = (await server.client.listTools()).tools;
        for (const dataset of DATASETS) {
          const tool = tools.find((t) => t.name === toolNameOf(dataset));
          assert.ok(tool, `${dialect}: ${toolNameOf(dataset)} listed`);
          const expected = Object.keys(toolInputJsonSchema(dataset)['properties'] ?? {}).sort();
          assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), expected, `${dialect}: ${tool.name}'s parameters`);
        }
        // A refusal names the tool's own parameters, never the upstream's names for them.
        const refused = await server.client.callTool({
          name: 'derived_dealer_gex_history',
          arguments: JSON.parse('{"ticker":"SPY","__proto__":{"limit":3}}') as Record<string, unknown>,
        });
        const hint = errorOf(refused as never).hint ?? '';
        const accepted = new Set(/Accepted parameters: (.*)\./.exec(hint)?.[1]?.split(', '));
        const dealer = DATASETS.find((d) => d.toolOutput);
        assert.ok(dealer);
        assert.deepEqual([...accepted].sort(), Object.keys(toolInputJsonSchema(dealer)['properties'] ?? {}).sort(), `${dialect}: ${hint}`);
      } finally {
        await server.close();
      }
    });
  });

  test(`${dialect}: tickers, side and limit on congress trades read the upstream's matching rows whole and once, sending only what its document lists`, async () => {
    await inDialect(dialect, async (sim, call) => {
      const listed = await listedParameters(sim);
      const all = await upstreamRows(sim, '/v1/congress/recent-trades', listed.get('/v1/congress/recent-trades'));
      const counts = new Map<string, number>();
      for (const row of all) counts.set(String(row['ticker']), (counts.get(String(row['ticker'])) ?? 0) + 1);
      const tickers = [...counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([t]) => t);
      const expected = all.filter((row) => tickers.includes(String(row['ticker'])) && row['side'] === 'buy');
      assert.ok(expected.length > 4, `${dialect}: the upstream holds more matching rows than one answer's limit`);
      // An upstream that pages is read 4 rows at a time; one that does not, in one answer at its largest limit.
      const pages = (listed.get('/v1/congress/recent-trades') ?? []).some((p) => ['cursor', 'pageToken'].includes(p.name));
      const args = { tickers: tickers.join(','), side: 'buy', limit: pages ? 4 : 500 };
      const rows = await follow(sim, call, 'congress_recent_trades', '/v1/congress/recent-trades', args, dialect);
      assert.deepEqual(rows.map(keyOf), expected.map(keyOf), `${dialect}: every matching row once, in the upstream's order`);
    });
  });

  test(`${dialect}: a date range and a page size are applied whole: the rows of the range, and the first rows of a list`, async () => {
    await inDialect(dialect, async (sim, call) => {
      const listed = await listedParameters(sim);
      const days = await upstreamRows(sim, '/v1/market/total-options-volume', listed.get('/v1/market/total-options-volume'));
      const dates = days.map((d) => String(d['date'])).sort();
      const [from, to] = [dates[dates.length - 12], dates[dates.length - 3]];
      assert.ok(from && to);
      const ranged = await follow(
        sim,
        call,
        'market_total_options_volume',
        '/v1/market/total-options-volume',
        { from, to },
        `${dialect} range`,
      );
      assert.deepEqual(
        ranged.map((d) => String(d['date'])).sort(),
        dates.filter((d) => d >= from && d <= to),
        `${dialect}: every day of the range, none outside it`,
      );

      const screener = await upstreamRows(sim, '/v1/shorts/short-screener', listed.get('/v1/shorts/short-screener'));
      const first = await call('shorts_short_screener', { limit: 30 });
      assert.deepEqual((first.data as Row[]).map(keyOf), screener.slice(0, 30).map(keyOf), `${dialect}: the first 30 rows`);
      assert.equal(first.meta.has_more, screener.length > 30, `${dialect}: has_more when rows remain`);
      if (first.meta.next_cursor) {
        const rest = await follow(
          sim,
          call,
          'shorts_short_screener',
          '/v1/shorts/short-screener',
          { cursor: first.meta.next_cursor },
          `${dialect} screener`,
        );
        assert.deepEqual([...(first.data as Row[]), ...rest].map(keyOf), screener.map(keyOf), `${dialect}: the whole list once`);
      }
    });
  });

  test(`${dialect}: a session asked of a general tool goes upstream under the document's name for it, and answers that session's rows`, async () => {
    await inDialect(dialect, async (sim, call) => {
      const listed = await listedParameters(sim);
      const path = '/v1/market/oi-change';
      const sessionName = (listed.get(path) ?? []).find((p) => ['session_date', 'sessionDate', 'date'].includes(p.name))?.name;
      assert.ok(sessionName, `${dialect}: the document offers a session on ${path}`);
      const older = previousTradingDay(latestSession(Date.now()).date);
      const direct = await get(sim, `${path}?${new URLSearchParams({ [sessionName]: older }).toString()}`, KEY);
      const expected = (rowsIn(payloadParts(direct.body).data) ?? []) as Row[];
      const before = sim.api.requests.length;
      const answer = await call('market_oi_change', { session_date: older, limit: 5 });
      const sent = sim.api.requests.slice(before).filter((r) => r.path === path);
      assert.ok(
        sent.some((r) => new URLSearchParams(r.query).get(sessionName) === older),
        `${dialect}: sent as ${sessionName}=${older}`,
      );
      assert.deepEqual((answer.data as Row[]).map(keyOf), expected.slice(0, 5).map(keyOf), `${dialect}: that session's first rows`);
    });
  });
}
