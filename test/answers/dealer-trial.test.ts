/** Dealer GEX: what a new user's first calls cost and what its refusals say (new-user trial findings). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recentSessions } from '../../src/catalog/market-calendar.js';
import { errorOf } from '../helpers/mcp.js';
import { dealerCursorName, dealerFixedPageSize } from '../helpers/upstream.js';
import { upstreamSnapshots, withSession, type Snapshot } from '../helpers/answers-harness.js';
import { lastFullSession } from '../helpers/sessions.js';

const TOOL = 'derived_dealer_gex_history';

test('the default call costs one upstream request; has_more comes from the upstream next_cursor', async () => {
  await withSession({}, async (session) => {
    const before = session.sim.api.requests.length;
    const first = await session.answer(TOOL, { ticker: 'SPY' });
    const spent = session.sim.api.requests.slice(before);
    assert.equal(spent.length, 1, `one upstream request, got ${spent.map((r) => r.query).join(' | ')}`);
    assert.equal((first.data as Snapshot[]).length, 1);
    assert.equal(first.meta.has_more, true, 'older snapshots follow');
    assert.ok(first.meta.next_cursor);

    // Following the cursor reads on from the upstream page after the one already read,
    // never the first page again.
    const mark = session.sim.api.requests.length;
    const second = await session.answer(TOOL, { ticker: 'SPY', cursor: first.meta.next_cursor });
    const followed = session.sim.api.requests.slice(mark);
    // One request, or none where the upstream's fixed page already held the next snapshot (read from the cache).
    assert.ok(followed.length <= 1, 'at most one request to follow the cursor');
    assert.equal(second.meta['units'], followed.length, 'the answer says what it spent');
    const cursorName = dealerCursorName(session.sim.api.dialect);
    if (dealerFixedPageSize(session.sim.api.dialect) === undefined)
      assert.ok(
        new URLSearchParams(followed[0]?.query ?? '').has(cursorName),
        'continues at the upstream cursor, not from the newest snapshot again',
      );
    const upstream = await upstreamSnapshots(session, 'SPY');
    assert.deepEqual(
      [...(first.data as Snapshot[]), ...(second.data as Snapshot[])].map((s) => s.snapshot_at),
      upstream.slice(0, 2).map((s) => s.snapshot_at),
      'the next snapshot, none skipped or repeated',
    );
  });
});

test('a session_date the history does not hold says so and names the sessions it holds; a weekend is refused for free', async () => {
  await withSession({}, async (session) => {
    const held = recentSessions(session.sim.api.now(), 3).map((s) => s.date);
    const before = session.sim.api.requests.length;
    const old = await session.answer(TOOL, { ticker: 'SPY', session_date: '2020-03-03' });
    assert.deepEqual(old.data, []);
    // Never more pages than the whole history holds at the upstream's page size (60, or its fixed one).
    const pageSize = dealerFixedPageSize(session.sim.api.dialect) ?? 60;
    const spent = session.sim.api.requests.length - before;
    assert.ok(spent <= Math.ceil((3 * 78) / pageSize) + 1, `the walk stays bounded (${spent} requests)`);
    assert.equal(old.meta['units'], spent, 'the answer says what it spent');
    const notice = typeof old.meta['notice'] === 'string' ? old.meta['notice'] : '';
    assert.match(notice, /2020-03-03/, notice);
    for (const date of held) assert.ok(notice.includes(date), `notice names held session ${date}: ${notice}`);

    const mark = session.sim.api.requests.length;
    // 2026-11-21 is a Saturday.
    const refused = await session.call(TOOL, { ticker: 'SPY', session_date: '2026-11-21' });
    const error = errorOf(refused);
    assert.equal(error.code, 'VALIDATION_ERROR');
    assert.match(`${error.message} ${error.hint ?? ''}`, /Saturday/);
    assert.match(error.hint ?? '', /weekday/);
    assert.equal(session.sim.api.requests.length, mark, 'no upstream request for a weekend date');
  });
});

test('limit is type-checked like every other tool: "3.5" and true are refused as not integers', async () => {
  await withSession({}, async (session) => {
    const before = session.sim.api.requests.length;
    for (const limit of ['3.5', true]) {
      const refused = await session.call(TOOL, { ticker: 'SPY', view: 'full', limit });
      const error = errorOf(refused);
      assert.equal(error.code, 'VALIDATION_ERROR', JSON.stringify(limit));
      assert.match(error.message, /"limit"/);
      assert.match(error.message, /expected an integer/);
    }
    assert.equal(session.sim.api.requests.length, before, 'no upstream request for refused input');
    // A whole past session: today's holds fewer than 3 snapshots in its first quarter hour.
    const ok = await session.answer(TOOL, { ticker: 'SPY', view: 'full', session_date: lastFullSession(), limit: 3 });
    assert.equal((ok.data as Snapshot[]).length, 3);
  });
});

test('hints for bad shaping values name the allowed values or the format', async () => {
  await withSession({}, async (session) => {
    const view = errorOf(await session.call(TOOL, { ticker: 'SPY', view: 'summary' }));
    assert.equal(view.code, 'VALIDATION_ERROR');
    for (const allowed of ['latest', 'levels', 'full']) assert.ok(view.hint?.includes(allowed), view.hint ?? '');
    const date = errorOf(await session.call(TOOL, { ticker: 'SPY', session_date: '2026-02-30' }));
    assert.equal(date.code, 'VALIDATION_ERROR');
    assert.match(date.hint ?? '', /YYYY-MM-DD/);
    assert.match(date.hint ?? '', /real/);
  });
});
