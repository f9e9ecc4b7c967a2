/**
 * The views' data side, without a browser: where the dealer timeline comes from (the
 * tool's compact levels view, a session at a time) and how payloads map to what is drawn.
 * Runs everywhere, chromium or not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { etInstant, hourTicks, levelsOf, levelsPage, sessionMinutes, snapshotOf } from '../../views/dealer-gex/model.js';
import { dayBefore, shapeFromSchema, TimelineSource, type ToolCaller } from '../../views/dealer-gex/timeline-source.js';
import { LEVEL_COLUMNS } from '../../src/catalog/index.js';
import type { ToolResult } from '../../views/shared/protocol.js';
import { ranked, shortPayload } from '../../views/short-interest/model.js';

const SESSIONS = ['2026-11-20', '2026-11-19', '2026-11-18'];
// The columns the server's levels view sends, from the catalog: the view must read them.
const COLUMNS = [...LEVEL_COLUMNS];

interface Snap {
  at: string;
  session: string;
  time: string;
  spot: number;
}

/** Every 5-minute snapshot of three sessions, newest first. */
function history(): Snap[] {
  const out: Snap[] = [];
  for (const session of SESSIONS) {
    for (let minutes = 16 * 60; minutes >= 9 * 60 + 35; minutes -= 5) {
      const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
      out.push({ at: `${session}T${time}:00-05:00`, session, time, spot: 600 + minutes / 100 });
    }
  }
  return out;
}

function answer(data: unknown, next: string | null): ToolResult {
  const structured = { data, meta: { ...(next ? { next_cursor: next } : {}) } };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * The dealer tool as the server answers it: levels as `{ columns, sessions[].rows }` (no
 * window: the newest session; session_date; `to` for everything up to a day), at most
 * `page` rows an answer with a cursor that alone continues; full snapshots by session or time.
 */
function fakeTool(page = 100): ToolCaller & { calls: Record<string, unknown>[] } {
  const all = history();
  const calls: Record<string, unknown>[] = [];
  const cursors = new Map<string, { rows: Snap[]; offset: number }>();
  const levels = (rows: Snap[], offset: number): ToolResult => {
    const shown = rows.slice(offset, offset + page);
    const sessions: { session_date_et: string; rows: (string | number)[][] }[] = [];
    for (const r of shown) {
      let group = sessions[sessions.length - 1];
      if (group?.session_date_et !== r.session) sessions.push((group = { session_date_et: r.session, rows: [] }));
      group.rows.push([r.time, r.spot, r.spot - 3, 610, 615, 590, 615, 590, 1000]);
    }
    let next: string | null = null;
    if (offset + page < rows.length) {
      next = `c${cursors.size}`;
      cursors.set(next, { rows, offset: offset + page });
    }
    return answer({ columns: COLUMNS, sessions }, next);
  };
  return {
    calls,
    callServerTool: (_name, args) => {
      calls.push(args);
      const cursor = args['cursor'];
      if (typeof cursor === 'string') {
        const at = cursors.get(cursor);
        if (!at || Object.keys(args).some((k) => k !== 'ticker' && k !== 'cursor'))
          throw new Error('a cursor is followed with ticker alone');
        return Promise.resolve(levels(at.rows, at.offset));
      }
      const session = args['session_date'];
      const to = args['to'];
      const from = args['from'];
      let rows = all;
      if (typeof session === 'string') rows = all.filter((r) => r.session === session);
      else if (typeof from === 'string' && typeof to === 'string') rows = all.filter((r) => r.at >= from && r.at <= to);
      else if (typeof to === 'string') rows = all.filter((r) => r.session <= to);
      else if (args['view'] !== 'latest') rows = all.filter((r) => r.session === all[0]?.session);
      if (typeof args['limit'] === 'number') rows = rows.slice(0, args['limit']);
      if (args['view'] === 'levels') return Promise.resolve(levels(rows, 0));
      const full = rows.slice(0, 1).map((r) => ({
        ticker: 'SPY',
        snapshot_at: r.at,
        session_date_et: r.session,
        state: 'closed',
        spot_usd: r.spot,
        summary: {
          gamma_flip_usd: r.spot - 3,
          king_strike_usd: 610,
          call_wall_strike_usd: 615,
          put_wall_strike_usd: 590,
          total_gex_usd: 1e9,
        },
        strikes: [{ strike_usd: 600, net_gex_usd: 1, node_type: 'king', rank: 1, relative_strength: 1 }],
      }));
      return Promise.resolve(answer(full, null));
    },
  };
}

const SCHEMA = {
  type: 'object',
  properties: { ticker: {}, view: { enum: ['latest', 'levels', 'full'] }, session_date: {}, from: {}, to: {}, limit: { maximum: 234 } },
};

test('the timeline reads the newest session whole from the levels view, and names the older sessions', async () => {
  const tool = fakeTool();
  const shape = shapeFromSchema(SCHEMA);
  assert.deepEqual(shape, { levels: true, sessionDate: true, range: true, maxLimit: 234 });
  const source = new TimelineSource(tool, 'SPY', shape);
  assert.equal(await source.loadLatest(), '2026-11-20');
  assert.deepEqual(source.sessions(), SESSIONS, 'older sessions are offered before they are read');
  assert.equal(source.rows('2026-11-20').length, 78, 'the newest session whole');
  assert.equal(source.rows('2026-11-20')[0]?.at, '2026-11-20T16:00:00-05:00', 'newest first, timed as snapshot_at is');
  assert.ok(source.complete('2026-11-20'));
  assert.equal(source.complete('2026-11-19'), false, 'older sessions wait until asked for');
  assert.ok(tool.calls.length > 0 && tool.calls.every((c) => c['view'] === 'levels' && c['ticker'] === 'SPY'));
  assert.deepEqual(
    tool.calls.slice(1).map((c) => [c['to'], c['limit']]),
    [
      ['2026-11-19', 1],
      ['2026-11-18', 1],
      ['2026-11-17', 1],
    ],
    'one one-row call per older session, until none is left',
  );

  const before = tool.calls.length;
  assert.equal((await source.loadSession('2026-11-19')).length, 78);
  assert.deepEqual(tool.calls.slice(before), [{ ticker: 'SPY', view: 'levels', session_date: '2026-11-19' }], 'a session by session_date');
  await source.loadSession('2026-11-19');
  assert.equal(tool.calls.length, before + 1, 'a session read is not read again');
});

test('a session longer than one answer follows the server cursor with the ticker alone', async () => {
  const tool = fakeTool(30);
  const source = new TimelineSource(tool, 'SPY', shapeFromSchema(SCHEMA));
  await source.loadLatest();
  assert.equal(source.rows('2026-11-20').length, 78);
  assert.deepEqual(
    tool.calls.slice(0, 3).map((c) => Object.keys(c).sort()),
    [
      ['ticker', 'view'],
      ['cursor', 'ticker'],
      ['cursor', 'ticker'],
    ],
  );
  const times = source.rows('2026-11-20').map((r) => Date.parse(r.at));
  assert.ok(times.length === 78 && times.every((t, i) => i === 0 || (times[i - 1] ?? 0) - t === 300_000), 'no gap, no repeat');
});

test('strikes of a session or of one point come from the full view', async () => {
  const tool = fakeTool();
  const source = new TimelineSource(tool, 'SPY', shapeFromSchema(SCHEMA));
  await source.loadLatest();
  await source.loadSession('2026-11-19');
  const newest = await source.newestOf('2026-11-19');
  assert.equal(newest?.at, '2026-11-19T16:00:00-05:00');
  assert.deepEqual(tool.calls.at(-1), { ticker: 'SPY', view: 'full', session_date: '2026-11-19', limit: 1 });
  const noon = await source.snapshotAt('2026-11-19T12:00:00-05:00');
  assert.equal(noon?.at, '2026-11-19T12:00:00-05:00');
  assert.equal(noon?.strikes.length, 1);
  assert.deepEqual(tool.calls.at(-1), {
    ticker: 'SPY',
    view: 'full',
    from: '2026-11-19T12:00:00-05:00',
    to: '2026-11-19T12:00:00-05:00',
    limit: 1,
  });
  const calls = tool.calls.length;
  await source.snapshotAt('2026-11-19T12:00:00-05:00');
  await source.newestOf('2026-11-19');
  assert.equal(tool.calls.length, calls, 'a snapshot already read is not fetched again');
});

test('levels table rows carry the same instant and values as the snapshot they summarise', () => {
  const page = levelsPage({
    data: {
      columns: COLUMNS,
      sessions: [{ session_date_et: '2026-11-20', rows: [['10:35', 600.5, 597.25, 605, 610, 590, 610, 590, 1234]] }],
    },
    meta: { next_cursor: 'abc' },
  });
  assert.deepEqual(page, {
    rows: [
      {
        at: '2026-11-20T10:35:00-05:00',
        session: '2026-11-20',
        spot: 600.5,
        flip: 597.25,
        king: 605,
        callWall: 610,
        putWall: 590,
        totalGex: 1234e6,
      },
    ],
    nextCursor: 'abc',
  });
  assert.equal(etInstant('2026-07-01', '09:30'), '2026-07-01T09:30:00-04:00', 'daylight time in summer');
  assert.equal(etInstant('2026-11-02', '09:30'), '2026-11-02T09:30:00-05:00', 'standard time after the switch');
  assert.equal(dayBefore('2026-03-01'), '2026-02-28');
});

test('levels rows map the same whether the summary is nested or flat', () => {
  const flat = levelsOf({
    snapshot_at: '2026-11-20T10:00:00-05:00',
    session_date_et: '2026-11-20',
    spot_usd: 600,
    gamma_flip_usd: 597,
    call_wall_strike_usd: 610,
    put_wall_strike_usd: 590,
    king_strike_usd: 605,
  });
  const nested = snapshotOf({
    snapshot_at: '2026-11-20T10:00:00-05:00',
    session_date_et: '2026-11-20',
    spot_usd: 600,
    strikes: [
      { strike_usd: 605, net_gex_usd: 5 },
      { strike_usd: 595, net_gex_usd: -3 },
    ],
    summary: { gamma_flip_usd: 597, call_wall_strike_usd: 610, put_wall_strike_usd: 590, king_strike_usd: 605 },
  });
  assert.deepEqual(
    { ...nested, strikes: undefined, ticker: undefined, state: undefined },
    { ...flat, strikes: undefined, ticker: undefined, state: undefined },
  );
  assert.deepEqual(
    nested?.strikes.map((s) => s.strike),
    [595, 605],
    'strikes in strike order',
  );
});

test('short payloads: screener, ratio series and venues are told apart by their fields', () => {
  const screener = shortPayload(
    {
      data: [
        { ticker: 'GME', short_float_pct: 22, days_to_cover: 3 },
        { ticker: 'AMC', short_float_pct: 31, days_to_cover: 1.5 },
      ],
    },
    undefined,
    undefined,
  );
  assert.equal(screener.kind, 'screener');
  if (screener.kind === 'screener') {
    assert.deepEqual(
      ranked(screener.rows, 'shortFloatPct').map((r) => r.ticker),
      ['AMC', 'GME'],
    );
    assert.deepEqual(
      ranked(screener.rows, 'daysToCover').map((r) => r.ticker),
      ['GME', 'AMC'],
    );
  }
  const ratio = shortPayload(
    {
      data: [
        { date: '2026-11-20', short_volume: 40, total_volume: 100 },
        { date: '2026-11-19', short_ratio: 55 },
      ],
    },
    'shorts_volume_and_ratio',
    'GME',
  );
  assert.equal(ratio.kind, 'ratio');
  if (ratio.kind === 'ratio') {
    assert.deepEqual(
      ratio.points.map((p) => [p.date, p.ratio]),
      [
        ['2026-11-19', 0.55],
        ['2026-11-20', 0.4],
      ],
      'oldest first, percent or fraction alike',
    );
    assert.equal(ratio.ticker, 'GME');
  }
  const venues = shortPayload(
    {
      data: [
        { date: '2026-11-20', venue: 'NYSE TRF', short_volume: 10 },
        { date: '2026-11-20', venue: 'FINRA ADF', short_volume: 5 },
      ],
    },
    undefined,
    'GME',
  );
  assert.equal(venues.kind, 'venues');
  if (venues.kind === 'venues') assert.equal(venues.days[0]?.byVenue.size, 2);
});

test("the timeline's time axis runs from the open to the session's own close: 13:00 on a half day", () => {
  // The day after Thanksgiving 2026 closes at 13:00; the day before it at 16:00.
  assert.deepEqual(sessionMinutes('2026-11-27'), [570, 780]);
  assert.deepEqual(hourTicks(sessionMinutes('2026-11-27')), [10, 11, 12, 13]);
  assert.deepEqual(hourTicks(sessionMinutes('2026-11-25')), [10, 11, 12, 13, 14, 15, 16]);
});
