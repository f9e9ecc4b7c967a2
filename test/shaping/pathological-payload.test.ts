/**
 * Pages whose shape made trimming slow: 100,000 empty rows in a 0.3 MB body held the event
 * loop 60 s (the exact counter is quadratic on punctuation and trimming called it ~17
 * times on the whole page). Through the built binary: the answer fits the budget, the
 * rows read and the exact counts are bounded whatever the page's size (read from the
 * server's debug log, no clock), and a `ping` never waits more than a share of what one
 * JSON.parse of the same page costs in the test process (a ratio, not a clock threshold).
 * The bound it had, ten pings of an ordinary call or 3 s more, let a ping wait 1.2-2.6 s
 * through a million rows at load 5-9 and still pass.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { connectV2, textOf } from '../helpers/mcp.js';
import { eventually, withFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789-SECRET';
const BUDGET = 8000;
const TOOL = 'shorts_short_screener';

interface Shaped {
  rows_read: number;
  exact_counts: number;
  exact_chars: number;
}

/** The server's record of what each trimming cost (debug level, one JSON line per call). */
function shapingRecords(stderr: string): Shaped[] {
  return stderr
    .split('\n')
    .filter((line) => line.includes('"msg":"shaped"'))
    .map((line) => JSON.parse(line) as Shaped);
}

/** Round trips of pings sent back to back until `call` settles: the event loop's responsiveness meanwhile. */
async function pingsDuring<T>(client: Client, call: Promise<T>): Promise<{ result: T; slowestMs: number; pings: number }> {
  let settled = false;
  const done = call.finally(() => {
    settled = true;
  });
  let slowestMs = 0;
  let pings = 0;
  while (!settled) {
    const started = performance.now();
    await client.ping();
    slowestMs = Math.max(slowestMs, performance.now() - started);
    pings += 1;
  }
  return { result: await done, slowestMs, pings };
}

function structuredOf(result: unknown): {
  data: unknown[];
  meta: { truncated: boolean; has_more?: boolean; trimmed?: { rows_returned: number; rows_left: number } };
} {
  return (result as { structuredContent: never }).structuredContent;
}

async function withServer(run: (fake: FakeUpstream, client: Client, stderr: () => string) => Promise<void>): Promise<void> {
  await withFakeUpstream(async (fake) => {
    const server = await connectV2({
      baseUrl: fake.url,
      key: KEY,
      env: {
        MARKET_DATA_LOG_LEVEL: 'debug',
        MARKET_DATA_RESULT_TOKENS: String(BUDGET),
      },
    });
    try {
      await run(fake, server.client, server.stderr);
    } finally {
      await server.close();
    }
  });
}

const emptyRows = (n: number): string => `{"data":[${'{},'.repeat(n - 1)}{}],"_meta":{}}`;

/**
 * What one JSON.parse of `text` costs in this process (best of three): the floor a server
 * that parsed the page in one go would hold its event loop, on this machine at this load.
 */
function parseFloorMs(text: string): number {
  let best = Infinity;
  for (let round = 0; round < 3; round += 1) {
    const started = performance.now();
    JSON.parse(text);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

test('400,000 and 2,500,000 empty rows (7.5 MB, under the default body cap): cut to the limit asked reading the same few rows, at most three exact counts, and no ping waits even half of one JSON.parse of the page', async () => {
  await withServer(async (fake, client, stderr) => {
    // Both over the 1 MiB a native parse takes whole, so both are read the same way. The
    // upstream sends them whatever limit it is asked (the page is keyed by the limit only so
    // that each call is a request of its own).
    const pages: Record<string, string> = { '998': emptyRows(400_000), '999': emptyRows(2_500_000) };
    fake.answer = (_req, url) => ({
      body: pages[url.searchParams.get('limit') ?? ''] ?? { data: [{ ticker: 'AAPL', short_float_pct: 1.5 }], _meta: {} },
    });
    const records: Shaped[] = [];
    for (const [limit, rows] of [
      [998, 400_000],
      [999, 2_500_000],
    ] as const) {
      const before = shapingRecords(stderr()).length;
      const { result, slowestMs, pings } = await pingsDuring(client, client.callTool({ name: TOOL, arguments: { limit } }));
      assert.notEqual(result.isError, true, textOf(result));
      const answer = structuredOf(result);
      assert.ok(countTokens(textOf(result)) <= BUDGET, 'within the budget, in o200k tokens');
      // The limit asked, of rows that cost a token or two each: within the budget, not cut by it.
      assert.equal(answer.data.length, limit, `the ${limit} rows asked of ${rows}`);
      assert.equal(answer.meta.trimmed, undefined, 'nothing cut for the budget');
      assert.equal(answer.meta.has_more, true, 'the rest of the page is there for the cursor');
      // The log line goes to stderr as the answer goes to stdout: on a loaded machine it may come a moment later.
      await eventually(() => shapingRecords(stderr()).length > before, 10_000, 'the log line of what trimming cost').catch(() => undefined);
      const record = shapingRecords(stderr())[before];
      assert.ok(record, 'the server logged what trimming cost');
      records.push(record);
      // Each row costs at least a token: no more rows are read than the budget could hold, twice over.
      assert.ok(record.rows_read <= 2 * BUDGET, `${record.rows_read} rows read of ${rows}`);
      assert.ok(record.exact_counts <= 3, `${record.exact_counts} exact counts`);
      assert.ok(record.exact_chars <= 3 * 16 * BUDGET, `exact counts read ${record.exact_chars} characters`);
      assert.ok(pings > 0);
      if (rows < 1_000_000) continue;
      // No clock threshold: the bound is a share of what one JSON.parse of the same page costs
      // here and now. Before the fix a ping waited 6-10 parses (parse, depth walk, copy, cache
      // stringify, one garbage collection over millions of live rows); slices of 64 KB with a
      // turn between, and at most 100,000 rows built, leave it a small share of one.
      const floorMs = parseFloorMs(pages['999'] ?? '');
      assert.ok(
        slowestMs <= floorMs / 2,
        `slowest ping ${Math.round(slowestMs)} ms during ${rows} rows; one JSON.parse of that page takes ${Math.round(floorMs)} ms here`,
      );
    }
    const [small, large] = records;
    assert.ok(small && large);
    // The same work within a row: the larger answer's meta counts one more digit of rows left out.
    assert.ok(
      Math.abs(large.rows_read - small.rows_read) <= 1,
      `over ten times the rows, the same work: ${small.rows_read} and ${large.rows_read} rows read`,
    );
  });
});

/** 10,000 rows of the kind a real page holds (1.4 MB): the control a pathological page is held against. */
function ordinaryRows(n: number): string {
  const rows = Array.from({ length: n }, (_, i) => ({
    ticker: 'AAPL',
    short_float_pct: 1 + (i % 50) / 10,
    days_to_cover: (i % 97) / 10,
    settlement_date: '2026-11-14',
    venue: 'NYSE',
    executed_at: '2026-11-23T15:59:59.800-05:00',
  }));
  return JSON.stringify({ data: rows, _meta: {} });
}

test('100,000 empty rows in 0.3 MB (parsed in one go before): cut to the limit asked, and no ping waits much longer than during 10,000 ordinary rows', async () => {
  await withServer(async (fake, client) => {
    const page = emptyRows(100_000);
    const control = ordinaryRows(10_000);
    // Three calls of each, each its own upstream request (a limit of its own): never from the cache.
    const pathological = [994, 995, 996];
    const ordinary = [997, 998, 999];
    fake.answer = (_req, url) => {
      const limit = Number(url.searchParams.get('limit'));
      if (pathological.includes(limit)) return { body: page };
      if (ordinary.includes(limit)) return { body: control };
      return { body: { data: [{ ticker: 'AAPL', short_float_pct: 1.5 }], _meta: {} } };
    };
    await client.callTool({ name: TOOL, arguments: { limit: 5 } });
    // What the server holds the loop for recurs with each call; what the machine's load adds
    // does not: the least of three calls' slowest pings is the server's own.
    const leastSlowest = async (limits: number[], rows: number): Promise<number> => {
      let least = Infinity;
      for (const limit of limits) {
        const { result, slowestMs, pings } = await pingsDuring(client, client.callTool({ name: TOOL, arguments: { limit } }));
        assert.notEqual(result.isError, true, textOf(result));
        const answer = structuredOf(result);
        assert.ok(countTokens(textOf(result)) <= BUDGET, 'within the budget, in o200k tokens');
        // Empty rows: the limit asked fits the budget; ordinary ones are cut to it. Either way
        // the rest of the page, up to its ${rows} rows, is for the cursor.
        const shown = answer.data.length + (answer.meta.trimmed?.rows_left ?? 0);
        assert.equal(shown, Math.min(limit, rows), `the ${limit} rows asked, shown or counted as left`);
        assert.equal(answer.meta.has_more, true);
        assert.ok(pings > 0);
        least = Math.min(least, slowestMs);
      }
      return least;
    };
    const emptyMs = await leastSlowest(pathological, 100_000);
    const ordinaryMs = await leastSlowest(ordinary, 10_000);
    // Before: built in one go, walked whole for its depth, its keys cleaned with an await a
    // row, serialized whole for the cache: the slowest ping waited 86-118 ms, 11-15 times
    // what it waits during 10,000 ordinary rows (a page five times larger), still 5 at load 14; after, 0.6-2 at load 11,
    // 1.4-2.5 on a quiet machine once calls were cut to their limit (the ordinary pages cost less
    // shaping), 3.75 once beside a trial's load: 5 still tells the two apart.
    assert.ok(
      emptyMs <= 5 * ordinaryMs,
      `slowest ping ${Math.round(emptyMs)} ms during 100,000 empty rows, ${Math.round(ordinaryMs)} ms during 10,000 ordinary rows (the least of three calls each)`,
    );
  });
});

test('one row of 200,000 fields (3.2 MB): cut while it is read, said so, and no ping waits even half of one JSON.parse of the page', async () => {
  await withServer(async (fake, client) => {
    const fields = 200_000;
    const row = Object.fromEntries(Array.from({ length: fields }, (_, i) => [`f${i}`, i]));
    const page = JSON.stringify({ data: [row], _meta: {} });
    fake.answer = (_req, url) => ({
      body: ['6', '7', '8'].includes(url.searchParams.get('limit') ?? '')
        ? page
        : { data: [{ ticker: 'AAPL', short_float_pct: 1.5 }], _meta: {} },
    });
    await client.callTool({ name: TOOL, arguments: { limit: 5 } });
    // Three calls, each its own upstream request (a limit of its own): what the server holds the
    // loop for recurs with each, what the machine's load adds does not, so the least of their
    // slowest pings is the server's own (one call's alone failed once at load 5, 105 ms against 90).
    const calls = [];
    for (const limit of [6, 7, 8]) calls.push(await pingsDuring(client, client.callTool({ name: TOOL, arguments: { limit } })));
    for (const { result } of calls) assert.notEqual(result.isError, true, textOf(result));
    const slowestMs = Math.min(...calls.map((c) => c.slowestMs));
    const [{ result, pings }] = calls as [(typeof calls)[number]];
    const answer = structuredOf(result);
    assert.ok(countTokens(textOf(result)) <= BUDGET, 'within the budget, in o200k tokens');
    assert.equal(answer.meta.truncated, true);
    const [shown] = answer.data as Record<string, unknown>[];
    assert.ok(shown, 'the row is there, cut');
    const kept = Object.entries(shown);
    assert.ok(kept.length > 0 && kept.length < fields, `${kept.length} fields shown`);
    assert.ok(
      kept.every(([name, value]) => row[name] === value),
      'every field shown has its own value',
    );
    assert.ok(pings > 0);
    // Before: the whole row was built, then walked and copied by each round of squeezing; a
    // ping waited 7-13 parses of the page (0.5-1 s).
    const floorMs = parseFloorMs(page);
    assert.ok(
      slowestMs <= floorMs / 2,
      `slowest ping ${Math.round(slowestMs)} ms during a row of ${fields} fields; one JSON.parse of that page takes ${Math.round(floorMs)} ms here`,
    );
    const notice = (answer.meta as { notice?: string }).notice ?? '';
    const unread = /(\d+) fields were left out unread/.exec(notice);
    assert.ok(unread, `says fields were left unread: ${notice}`);
    assert.ok(Number(unread[1]) + kept.length <= fields && Number(unread[1]) > fields / 2, notice);
  });
});

test('10,000 ordinary rows fill the budget by the exact count, not the estimate’s cautious share of it', async () => {
  await withServer(async (fake, client) => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      ticker: ['AAPL', 'NVDA', 'BRK.B', 'GME'][i % 4],
      short_float_pct: Math.round(((i * 7919) % 4000) / 7) / 10,
      days_to_cover: (i % 97) / 10,
      settlement_date: `2026-10-${String(1 + (i % 28)).padStart(2, '0')}`,
    }));
    fake.answer = () => ({ body: { data: rows, _meta: {} } });
    const result = await client.callTool({ name: TOOL, arguments: { limit: 1000 } });
    assert.notEqual(result.isError, true, textOf(result));
    const answer = structuredOf(result);
    const used = countTokens(textOf(result));
    assert.ok(used <= BUDGET, `${used} tokens`);
    // The estimate alone counts such rows ~1.7x: it would stop near 60% of the budget.
    assert.ok(used >= 0.85 * BUDGET, `only ${used} of ${BUDGET} tokens used for ${answer.data.length} rows`);
  });
});

test('a page with no rows but one huge nested array is cut inside to the budget', async () => {
  await withServer(async (fake, client) => {
    const values = Array.from({ length: 300_000 }, (_, i) => i * 1.5);
    fake.answer = () => ({ body: { data: { summary: 'x', outer: [{ inner: [{ values }] }] }, _meta: {} } });
    const result = await client.callTool({ name: TOOL, arguments: { limit: 5 } });
    const text = textOf(result);
    assert.ok(countTokens(text) <= BUDGET, `${countTokens(text)} tokens`);
    assert.match(text, /"truncated":true/);
  });
});
