/**
 * Paging never skips: following meta.next_cursor from the first answer to the last reads
 * every row of the history once, in order, even when answers are cut to fit the budget.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { publication } from '../../src/simulator/dialect-params.js';
import { servedDataset, sizeCap, takesPageSize, upstreamList } from '../helpers/upstream.js';
import { dialectList, upstreamSnapshots, withSession, type Answer, type Session, type Snapshot } from '../helpers/answers-harness.js';

const PATHS: Record<string, string> = {
  congress_recent_trades: '/v1/congress/recent-trades',
  shorts_short_screener: '/v1/shorts/short-screener',
  market_oi_change: '/v1/market/oi-change',
};

/** How the simulator's dialect pages a list (publication's paging kind), if it is one. */
function listPagingOf(session: Session, path: string): string | undefined {
  return publication(servedDataset(session.sim, path), session.sim.api.dialect).paging?.kind;
}

/** Every snapshot instant the upstream holds for a ticker, newest first. */
async function upstreamHistory(session: Session, ticker: string): Promise<string[]> {
  return (await upstreamSnapshots(session, ticker)).map((s) => s.snapshot_at);
}

/** Follows cursors to the end; returns every answer. */
async function follow(session: Session, name: string, first: Record<string, unknown>, ticker?: string): Promise<Answer[]> {
  const answers = [await session.answer(name, first)];
  for (let guard = 0; guard < 500; guard += 1) {
    const last = answers[answers.length - 1];
    if (!last?.meta.next_cursor) break;
    // has_more, or (a page protocol without totals) the end said to be unknown, the next page maybe empty.
    if (last.meta.has_more === undefined) assert.match(String(last.meta['notice']), /did not say whether more rows follow/);
    else assert.equal(last.meta.has_more, true, 'a cursor comes with has_more');
    answers.push(await session.answer(name, { ...(ticker ? { ticker } : {}), cursor: last.meta.next_cursor }));
  }
  return answers;
}

test('full dealer snapshots, cut to a small budget, read the whole three-session history with no gap and no duplicate', async () => {
  await withSession({ MARKET_DATA_RESULT_TOKENS: '6000' }, async (session) => {
    const expected = await upstreamHistory(session, 'QQQ');
    const answers = await follow(session, 'derived_dealer_gex_history', { ticker: 'QQQ', view: 'full', from: '2000-01-03' }, 'QQQ');
    const seen = answers.flatMap((a) => (a.data as Snapshot[]).map((s) => s.snapshot_at));
    assert.ok(
      answers.some((a) => a.meta.truncated),
      'some answers were cut to fit the budget',
    );
    assert.deepEqual(seen, expected, 'every snapshot once, newest first');
    assert.equal(answers[answers.length - 1]?.meta.has_more, false);
  });
});

test('levels of three sessions, cut to a small budget, follow to every snapshot once', async () => {
  await withSession({ MARKET_DATA_RESULT_TOKENS: '800' }, async (session) => {
    const expected = await upstreamHistory(session, 'SPY');
    const answers = await follow(session, 'derived_dealer_gex_history', { ticker: 'SPY', view: 'levels', from: '2000-01-03' }, 'SPY');
    const rows = answers.flatMap((a) => {
      const levels = a.data as { sessions: { session_date_et: string; rows: [string, ...number[]][] }[] };
      return levels.sessions.flatMap((s) => s.rows.map((r) => `${s.session_date_et} ${r[0]}`));
    });
    assert.ok(answers.length > 2, 'several answers');
    assert.equal(new Set(rows).size, rows.length, 'no duplicate');
    assert.equal(rows.length, expected.length, 'no gap');
  });
});

test('a trimmed page of a dataset the upstream does not page continues after its last row, to the end', async () => {
  await withSession({ MARKET_DATA_RESULT_TOKENS: '600' }, async (session) => {
    // Read as the client reads it, in whatever names, wrapper and pages the simulator's dialect uses.
    // Where the upstream pages the list itself, limit is the rows of each answer (as the
    // dealer's is) and the cursor goes on to the end of the list: at pages of that size where
    // the upstream takes one (offsets, page numbers, a Link or next_url with a page size).
    const path = '/v1/congress/recent-trades';
    const ownPages = !['first-rows', 'none'].includes(listPagingOf(session, path) ?? 'none');
    const pagedUpstream = !takesPageSize(session.sim, path) || ownPages;
    const direct =
      ownPages && takesPageSize(session.sim, path)
        ? await upstreamList(session.sim, path, { size: Math.min(200, sizeCap(session.sim, path)) })
        : await dialectList(session.sim, path, pagedUpstream ? 100_000 : 200);
    const expected = direct.rows;
    const requestsBefore = session.sim.api.requests.length;
    const answers = await follow(session, 'congress_recent_trades', { limit: 200 });
    const rows = answers.flatMap((a) => a.data as unknown[]);
    assert.ok(answers.length > 3, `several answers (${answers.length})`);
    // Over a list the upstream cuts at the page size, every answer but the last was cut to the
    // budget; over one it pages itself (next_url, Link, a token...), an answer may end with a page
    // of its own, whole, and go on to the next (follow() holds each to has_more).
    if (ownPages)
      assert.ok(
        answers.some((a) => a.meta.truncated === true),
        'the budget cut answers, and said so',
      );
    else
      assert.ok(
        // non-empty: more than three answers, asserted above
        answers.slice(0, -1).every((a) => a.meta.truncated === true),
        'each cut answer says rows were left out',
      );
    assert.deepEqual(rows, expected, 'every row once, in order');
    // The repeats come from the cache: the walk costs what reading the rows once costs (one
    // request, or the upstream's fixed pages where it takes no page size).
    assert.equal(session.sim.api.requests.length - requestsBefore, direct.requests, 'later pages cost no unit');
  });
});

test('a cursor refuses a changed query and tells how to follow it', async () => {
  await withSession({ MARKET_DATA_RESULT_TOKENS: '600' }, async (session) => {
    const first = await session.answer('congress_recent_trades', { limit: 200 });
    assert.ok(first.meta.next_cursor);
    const changed = await session.call('congress_recent_trades', { limit: 100, cursor: first.meta.next_cursor });
    assert.equal(changed.isError, true);
    const error = (changed.structuredContent as { error: { code: string; hint: string } }).error;
    assert.equal(error.code, 'VALIDATION_ERROR');
    assert.match(error.hint, /cursor/);
    const hint = (first.meta['trimmed'] as { how_to_get_more: string }).how_to_get_more;
    const tool = (await session.client.listTools()).tools.find((t) => t.name === 'congress_recent_trades');
    const params = Object.keys((tool?.inputSchema as { properties: Record<string, unknown> }).properties);
    for (const named of hint
      .match(/\b[a-z]+(?:_[a-z]+)*(?==|\b(?=[,;. ]))/g)
      ?.filter((w) => ['limit', 'fields', 'from', 'to', 'tickers', 'format', 'session_date', 'view'].includes(w)) ?? []) {
      assert.ok(params.includes(named), `advice names ${named}, a parameter the tool has`);
    }
  });
});

test('new snapshots arriving between pages shift the upstream pages, yet the walk neither repeats nor skips', async () => {
  // A live session: every page is read five simulated minutes after the previous one.
  let now = Date.parse('2026-11-18T20:00:00Z');
  await withSession(
    { MARKET_DATA_RESULT_TOKENS: '1200' },
    async (session) => {
      const expected = await upstreamHistory(session, 'IWM');
      const answers = [await session.answer('derived_dealer_gex_history', { ticker: 'IWM', view: 'levels', from: '2000-01-03' })];
      for (let guard = 0; guard < 200; guard += 1) {
        const cursor = answers[answers.length - 1]?.meta.next_cursor;
        if (!cursor) break;
        now += 5 * 60_000;
        answers.push(await session.answer('derived_dealer_gex_history', { ticker: 'IWM', cursor }));
      }
      const times = answers.flatMap((a) => {
        const levels = a.data as { sessions: { session_date_et: string; rows: [string, ...number[]][] }[] };
        return levels.sessions.flatMap((s) => s.rows.map((r) => `${s.session_date_et} ${r[0]}`));
      });
      assert.ok(answers.length > 3, `several answers (${answers.length})`);
      assert.equal(new Set(times).size, times.length, 'no snapshot twice');
      assert.equal(times.length, expected.length, 'none skipped: the history as it stood when the walk began');
    },
    'sim-live-key',
    { now: () => now },
  );
});

test('a limit that hides rows says so (has_more, and how to reach them); a limit that holds them all says none are left', async () => {
  await withSession({}, async (session) => {
    for (const [name, narrow] of [
      ['congress_recent_trades', { tickers: 'NVDA,AAPL' }],
      ['shorts_short_screener', { tickers: 'GME,AMC,SPY' }],
      ['market_oi_change', { tickers: 'SPY,QQQ' }],
    ] as const) {
      if (!takesPageSize(session.sim, PATHS[name] ?? '')) {
        // An upstream that takes no page size or ticker list: the server reads its pages, and
        // what a limit hides is reached by the cursor, not by a larger limit.
        const whole = (await follow(session, name, { ...narrow, limit: 500 })).flatMap((a) => a.data as unknown[]);
        const short = await session.answer(name, { ...narrow, limit: whole.length - 1 });
        // More remain, or (the limit met where an upstream that gives no flag and no total has
        // a next page) more may: then no end is claimed, and the cursor below must reach the rest.
        if (short.meta.has_more === undefined) {
          assert.match(String(short.meta['notice']), /did not say whether more rows follow/, `${name}: says the end is unknown`);
          assert.ok(short.meta.next_cursor, `${name}: an unknown end with a cursor to read on`);
        } else assert.equal(short.meta.has_more, true, `${name}: a limit one short of the rows says more remain`);
        const rest = short.meta.next_cursor
          ? (await follow(session, name, { cursor: short.meta.next_cursor })).flatMap((a) => a.data as unknown[])
          : [];
        assert.deepEqual([...(short.data as unknown[]), ...rest], whole, `${name}: the cursor reaches the rest, once`);
        continue;
      }
      const all = await session.answer(name, { ...narrow, limit: 500 });
      const count = (all.data as unknown[]).length;
      assert.ok(count >= 2 && count < 500, `${name}: the filtered rows fit one page (${count})`);
      assert.equal(all.meta.has_more, false, `${name}: limit=500 holds all ${count} rows`);
      const exact = await session.answer(name, { ...narrow, limit: count });
      // A page of exactly the size asked ends the list only where the API says so (a flag, a
      // total, an empty next slot); a bare full page says nothing, and no end may be claimed then.
      const direct = await upstreamList(session.sim, PATHS[name] ?? '', { filters: narrow, size: count });
      if (direct.cut || direct.silentEnd) {
        assert.equal(exact.meta.has_more, undefined, `${name}: limit=${count}, and the API said nothing of an end`);
        assert.match(String(exact.meta['notice']), /did not say whether more rows follow/, `${name}: says the end is unknown`);
      } else assert.equal(exact.meta.has_more, false, `${name}: limit=${count} holds them all`);
      const short = await session.answer(name, { ...narrow, limit: count - 1 });
      assert.equal((short.data as unknown[]).length, count - 1);
      if (short.meta.has_more === undefined) {
        // A full page the API said nothing after (no flag, no total): no end claimed, and the answer says so.
        assert.match(String(short.meta['notice']), /did not say whether more rows follow/, `${name}: says the end is unknown`);
        const hidden = await upstreamList(session.sim, PATHS[name] ?? '', { filters: narrow, size: count - 1 });
        assert.ok(short.meta.next_cursor !== undefined || hidden.silentEnd, `${name}: unknown only where the API gave no sign`);
      } else assert.equal(short.meta.has_more, true, `${name}: limit=${count - 1} hides one row, and says so`);
      if (short.meta.next_cursor) {
        // The upstream pages the list (page numbers, offsets, tokens): its next page holds the row.
        const rest = (await follow(session, name, { cursor: short.meta.next_cursor })).flatMap((a) => a.data as unknown[]);
        assert.deepEqual([...(short.data as unknown[]), ...rest], all.data, `${name}: the cursor reaches the hidden row, once`);
      } else if (short.meta.has_more === true)
        assert.match(
          String(short.meta['more_rows']),
          new RegExp(`limit=${count - 1}.*larger limit, up to \\d+`),
          `${name}: says how to reach it`,
        );
      assert.deepEqual(short.data, (all.data as unknown[]).slice(0, count - 1), `${name}: the rows shown are the first of the whole list`);
    }
  });
});
