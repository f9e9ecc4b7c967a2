/**
 * A dark-pool time window against the prints the upstream returns, newest first and cut at
 * the limit: a window before the first page is read back with the upstream's own way on (its
 * cursor, page number or next link) until covered, units counting the pages, or said to be
 * out of reach where the upstream serves only its newest prints; a window the prints read
 * reach past is complete and says so. Without an upstream cursor, the part not read is named,
 * and a larger limit is offered only when it would reach further.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { previousTradingDay, toEt, tradingDayOnOrBefore } from '../../src/catalog/market-calendar.js';
import type { ApiResult } from '../../src/api/client.js';
import { DATASETS, type DatasetDefinition } from '../../src/catalog/index.js';
import { applyRowFilter, rowFilterOf, type RowFilter } from '../../src/mcp/reading/row-filters.js';
import { listPaging } from '../../src/simulator/dialect-lists.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { clockOf, sessionPages, type Row } from '../helpers/darkpool-session.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';

const darkpool = ((): DatasetDefinition => {
  const found = DATASETS.find((d) => d.operationId === 'darkpool.by_ticker');
  assert.ok(found);
  return found;
})();
interface Answer {
  data: Row[];
  meta: { truncated: boolean; has_more?: boolean; next_cursor?: string; more_rows?: string; notice?: string; units?: number };
}
/** A session that has closed, whatever the time of day the test runs. */
const closedSession = (): string => previousTradingDay(tradingDayOnOrBefore(toEt(Date.now()).date));

/** Upstream pages read, newest first, until one reaches before `from` (the window is then covered), or all of them. */
const pagesToCover = (pages: readonly Row[][], from: string): number => {
  const index = pages.findIndex((page) => page.some((row) => clockOf(row) < from));
  return index < 0 ? pages.length : index + 1;
};

/**
 * Two windows of a closed session against its prints as the upstream pages them: a late one
 * the newest 500 prints reach past (one answer covers it in any dialect: one page of 500, or
 * ten of a fixed size), and an early one before them, read back with the upstream's cursor,
 * following next_cursor where one answer's pages do not reach it.
 */
async function windowsReadBack(sim: RunningSimulator): Promise<void> {
  const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
  const day = closedSession();
  const darkpoolPages = (from: number): number =>
    sim.api.requests.slice(from).filter((r) => r.path.startsWith('/v1/darkpool/') && r.charged).length;
  const call = async (args: Record<string, unknown>): Promise<Answer> => {
    const mark = sim.api.requests.length;
    const result = await client.callTool({ name: 'darkpool_by_ticker', arguments: { ticker: 'AAPL', ...args } });
    assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
    const answer = result.structuredContent as Answer;
    assert.equal(answer.meta.units, darkpoolPages(mark), 'units count the pages read');
    return answer;
  };
  /** A window's answers, next_cursor followed until none is left (an answer holds at most its limit of prints). */
  const window = async (args: Record<string, unknown>): Promise<{ rows: Row[]; units: number; last: Answer }> => {
    let last = await call({ session_date: day, fields: ['executed_at', 'notional_usd', 'size'], ...args });
    const rows = [...last.data];
    let units = last.meta.units ?? 0;
    for (let followed = 0; last.meta.next_cursor !== undefined && followed < 5; followed += 1) {
      last = await call({ cursor: last.meta.next_cursor });
      rows.push(...last.data);
      units += last.meta.units ?? 0;
    }
    return { rows, units, last };
  };
  try {
    const pages = await sessionPages(sim, day);
    const session = pages.flat();
    const newest = session.slice(0, 500);
    const oldest = newest.map(clockOf).reduce((a, b) => (b < a ? b : a));
    assert.ok(oldest > '10:30', `the newest 500 prints reach back to ${oldest}: the early window below must lie before them`);

    // The window starts at a large print the newest ones hold, after the oldest of them: those
    // reach past it (an upstream may serve only its newest 20 prints, minutes of a session).
    const large = newest.filter((r) => Number(r['notional_usd']) >= 1_000_000 && clockOf(r) > oldest);
    const middle = large[Math.floor((large.length - 1) / 2)];
    assert.ok(middle, 'a print of $1M or more among the newest, after the oldest of them');
    const from = clockOf(middle);
    const covered = await window({ from_time: from, min_notional_usd: 1_000_000 });
    assert.equal(covered.units, pagesToCover(pages, from), 'the pages that reach back to the window, none past it');
    assert.equal(covered.last.meta.has_more, false, 'the prints read reach past the window: nothing of it is left');
    const inLate = session.filter((r) => clockOf(r) >= from && Number(r['notional_usd']) >= 1_000_000);
    assert.ok(inLate.length > 0);
    assert.deepEqual(
      covered.rows.map((r) => r['executed_at']),
      inLate.map((r) => r['executed_at']),
      'exactly the prints of the window',
    );

    const earlyWindow = { from_time: '09:30', to_time: '10:30', min_size: 5000 };
    const reach = session.map(clockOf).reduce((a, b) => (b < a ? b : a));
    if (reach > '10:30') {
      // The upstream serves only its newest prints of a session (its list ends, or is cut with or
      // without saying so, after the window): nothing of the window can be read, and the answer
      // says how far back the prints reach rather than offering a page that does not exist.
      const early = await window(earlyWindow);
      assert.deepEqual(early.rows, [], 'no print of the window was read');
      assert.equal(early.last.meta.next_cursor, undefined, 'no way on is offered');
      assert.match(
        `${early.last.meta.more_rows ?? ''} ${early.last.meta.notice ?? ''}`,
        new RegExp(`None of the window 09:30 to 10:30 ET was read|older rows cannot be read through this API|back to ${reach} ET`),
        'how far back the prints read reach is said',
      );
      return;
    }
    const paging = listPaging(sim.api.dialect, darkpool);
    const early = await window(earlyWindow);
    if (paging?.kind === 'cursor')
      assert.ok(
        sim.api.requests.some((r) => r.path.startsWith('/v1/darkpool/') && new RegExp(`(^|[?&])${paging.cursor}=`).test(r.query)),
        "read back past the first page with the upstream's cursor",
      );
    assert.equal(early.last.meta.has_more, false, 'the window is complete');
    const inEarly = session.filter((r) => clockOf(r) >= '09:30' && clockOf(r) <= '10:30' && Number(r['size']) >= 5000);
    assert.ok(inEarly.length > 0);
    assert.deepEqual(
      early.rows.map((r) => r['executed_at']),
      inEarly.map((r) => r['executed_at']),
      'every print of the window, none from outside it',
    );
  } finally {
    await close();
  }
}

test("dark-pool time windows: read back with the upstream's way on until covered, complete, units counted; no page read past the window; out of reach said", async () => {
  await withSimulator({}, windowsReadBack);
});

test('dark-pool time windows against an upstream that takes no page size and pages its prints at a fixed size (vendor dialect)', async () => {
  await withSimulator({ dialect: 'vendor' }, windowsReadBack);
});

test('without an upstream cursor, a window past the prints read says which part was not read, with no advice that cannot reach it', () => {
  const at = (clock: string): string => `2026-11-20T${clock}:00-05:00`;
  const page: ApiResult = {
    data: ['16:00', '14:00', '12:00'].map((clock) => ({ executed_at: at(clock), size: 100 })),
    meta: { operation_id: 'darkpool.by_ticker', cache_hit: false, age_seconds: 0, truncated: true },
  };
  const filter = (args: Record<string, unknown>): RowFilter => {
    const made = rowFilterOf(darkpool, args);
    assert.ok(made);
    return made;
  };
  const atMax = applyRowFilter(page, filter({ from_time: '09:30', to_time: '10:30' }), { limit: 500, limitMax: 500 });
  assert.deepEqual(atMax.result.data, []);
  assert.match(atMax.moreRows ?? '', /None of the window 09:30 to 10:30 ET was read.*12:00 ET/);
  assert.doesNotMatch(atMax.moreRows ?? '', /ask a larger limit/);
  const below = applyRowFilter(page, filter({ from_time: '10:00' }), { limit: 100, limitMax: 500 });
  assert.match(below.moreRows ?? '', /not read.*ask a larger limit, up to 500/);
  const reached = applyRowFilter(page, filter({ from_time: '13:00' }), { limit: 500, limitMax: 500 });
  assert.equal(reached.result.meta.truncated, false, 'the prints not read lie before the window');
  assert.equal(reached.moreRows, undefined);
});
