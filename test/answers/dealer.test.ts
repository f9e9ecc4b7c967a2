/** Dealer GEX answers the common questions in one small call, for every simulated ticker. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEALER_TICKER_PATTERN, LEVEL_COLUMNS, NODE_TYPES, SNAPSHOT_STATES } from '../../src/catalog/index.js';
import { recentSessions } from '../../src/catalog/market-calendar.js';
import { REFERENCE } from '../../src/simulator/reference.js';
import { errorOf } from '../helpers/mcp.js';
import { forEachInSessions, tokens, upstreamSnapshots, withSession, type Snapshot } from '../helpers/answers-harness.js';

/** Token figures the answers promise (issue 12). */
const LATEST_TOKENS = 1500;
const SESSION_LEVELS_TOKENS = 3000;
const SNAPSHOTS_PER_SESSION = 78;

const TICKERS = REFERENCE.map((symbol) => symbol.ticker).filter((t) => DEALER_TICKER_PATTERN.test(t));

interface Levels {
  columns: string[];
  sessions: { session_date_et: string; rows: (string | number)[][] }[];
}

test('the default answer is the newest snapshot, summary first, strikes by strike, within its token figure for every ticker', async () => {
  await forEachInSessions({}, TICKERS, async (session, ticker) => {
    const answer = await session.answer('derived_dealer_gex_history', { ticker });
    const data = answer.data as Record<string, unknown>[];
    assert.equal(data.length, 1, `${ticker}: one snapshot`);
    const snapshot = data[0] ?? {};
    const keys = Object.keys(snapshot);
    assert.ok(keys.indexOf('summary') < keys.indexOf('strikes'), `${ticker}: summary before strikes`);
    const strikes = snapshot['strikes'] as { strike_usd: number; node_type: string }[];
    assert.deepEqual(
      strikes.map((s) => s.strike_usd),
      [...strikes.map((s) => s.strike_usd)].sort((a, b) => a - b),
      `${ticker}: strikes by strike`,
    );
    // Open values reach the agent as the upstream spelled them (the spec leaves both sets open):
    // the dialect's own words (callWall, CLOSED, settled), or ours for a strike it sent none for.
    const sent = session.sim.api.dialect.traits.values;
    const nodeTypes: readonly string[] = [...NODE_TYPES, ...Object.values(sent.nodeType)];
    for (const s of strikes) assert.ok(nodeTypes.includes(s.node_type), s.node_type);
    const states: readonly string[] = [...SNAPSHOT_STATES, ...Object.values(sent.state)];
    assert.ok(states.includes(String(snapshot['state'])), String(snapshot['state']));
    // A state the upstream spells otherwise is named beside it by the one it stands for.
    const normalized = snapshot['state_normalized'];
    if (normalized !== undefined)
      assert.ok(typeof normalized === 'string' && (SNAPSHOT_STATES as readonly string[]).includes(normalized), JSON.stringify(normalized));
    assert.equal(answer.meta['as_of'], snapshot['snapshot_at'], 'as of the snapshot time');
    assert.match(String(answer.meta['covers']), /session \d{4}-\d{2}-\d{2}/);
    const n = tokens(answer);
    assert.ok(n <= LATEST_TOKENS, `${ticker}: ${n} tokens`);
  });
});

test('a whole session of levels (78 snapshots) fits 3,000 tokens for every ticker, in one call', async () => {
  const env = { MARKET_DATA_RESULT_TOKENS: '20000' };
  const full = await withSession(env, async (session) => {
    const all = (await session.answer('derived_dealer_gex_history', { ticker: 'SPY', view: 'levels', from: '2000-01-03' })).data as Levels;
    return all.sessions.filter((s) => s.rows.length === SNAPSHOTS_PER_SESSION).map((s) => s.session_date_et);
  });
  assert.ok(full.length >= 1, 'a complete session is in the history');
  const pairs = TICKERS.flatMap((ticker) => full.map((date) => ({ ticker, date })));
  await forEachInSessions(env, pairs, async (session, { ticker, date }) => {
    const answer = await session.answer('derived_dealer_gex_history', { ticker, view: 'levels', session_date: date });
    const levels = answer.data as Levels;
    assert.deepEqual(levels.columns, [...LEVEL_COLUMNS]);
    assert.equal(levels.sessions.length, 1);
    assert.equal(levels.sessions[0]?.rows.length, SNAPSHOTS_PER_SESSION, `${ticker} ${date}: every snapshot`);
    assert.equal(answer.meta.truncated, false);
    assert.equal(answer.meta.has_more, false);
    assert.equal(answer.meta['covers'], `session ${date} (ET)`);
    const n = tokens(answer);
    assert.ok(n <= SESSION_LEVELS_TOKENS, `${ticker} ${date}: ${n} tokens`);
  });
});

test('session_date selects that session; from and to select a range; bad ranges are refused before any request', async () => {
  await withSession({ MARKET_DATA_RESULT_TOKENS: '20000' }, async (session) => {
    const all = (await session.answer('derived_dealer_gex_history', { ticker: 'QQQ', view: 'full', from: '2000-01-03', limit: 234 }))
      .data as Snapshot[];
    // The oldest of the three sessions the history holds, by the simulator's calendar (weekends
    // and holidays skipped): never the latest, so the answer cannot be the default one.
    const older = recentSessions(session.sim.api.now(), 3).at(-1)?.date ?? '';
    const upstream = await upstreamSnapshots(session, 'QQQ');
    const newestOfOlder = upstream.find((s) => s.session_date_et === older);
    assert.ok(newestOfOlder, `the history holds session ${older}`);
    assert.notEqual(older, upstream[0]?.session_date_et, 'an older session than the latest');
    const latestOfOlder = await session.answer('derived_dealer_gex_history', { ticker: 'QQQ', session_date: older });
    const snap = (latestOfOlder.data as Snapshot[])[0];
    assert.equal(snap?.session_date_et, older);
    assert.equal(snap?.snapshot_at, newestOfOlder.snapshot_at, 'the newest snapshot of that session');

    const inside = all.slice(10, 20);
    const from = inside[inside.length - 1]?.snapshot_at ?? '';
    const to = inside[0]?.snapshot_at ?? '';
    const range = await session.answer('derived_dealer_gex_history', { ticker: 'QQQ', view: 'full', from, to });
    assert.deepEqual(
      (range.data as { snapshot_at: string }[]).map((s) => s.snapshot_at),
      inside.map((s) => s.snapshot_at),
    );

    const before = session.sim.api.requests.length;
    for (const args of [
      { view: 'chart' },
      { session_date: '2026-02-30' },
      { session_date: older, from: older },
      { from: '2026-11-20', to: '2026-11-01' },
    ]) {
      const refused = await session.call('derived_dealer_gex_history', { ticker: 'QQQ', ...args });
      assert.equal(refused.isError, true, JSON.stringify(args));
      // The tool declares an outputSchema: its errors travel as text only (tool-errors.ts).
      assert.equal(errorOf(refused).code, 'VALIDATION_ERROR', JSON.stringify(args));
    }
    assert.equal(session.sim.api.requests.length, before, 'no upstream request for refused input');
  });
});
