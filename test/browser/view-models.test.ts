/**
 * The views' data side, without a browser: where the dealer timeline comes from (the
 * compact levels view when the tool has it, full snapshots otherwise) and how payloads
 * of either shape map to what is drawn. Runs everywhere, chromium or not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { levelsOf, snapshotOf } from '../../views/dealer-gex/model.js';
import { shapeFromSchema, TimelineSource, type ToolCaller } from '../../views/dealer-gex/timeline-source.js';
import type { ToolResult } from '../../views/shared/protocol.js';
import { ranked, shortPayload } from '../../views/short-interest/model.js';

const SESSIONS = ['2026-11-20', '2026-11-19', '2026-11-18'];

/** Every 5-minute snapshot of three sessions, newest first, as compact levels rows. */
function history(): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const session of SESSIONS) {
    for (let minutes = 16 * 60; minutes > 9 * 60 + 30; minutes -= 5) {
      const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
      const mm = String(minutes % 60).padStart(2, '0');
      const spot = 600 + minutes / 100;
      rows.push({
        snapshot_at: `${session}T${hh}:${mm}:00-05:00`,
        session_date_et: session,
        spot_usd: spot,
        gamma_flip_usd: spot - 3,
        king_strike_usd: 610,
        call_wall_strike_usd: 615,
        put_wall_strike_usd: 590,
        total_gex_usd: 1e9,
      });
    }
  }
  return rows;
}

function page(rows: unknown[], next: number | null): ToolResult {
  const structured = { data: rows, meta: { next_cursor: next === null ? null : String(next) } };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

const refused: ToolResult = { isError: true, content: [{ type: 'text', text: 'VALIDATION_ERROR: Unknown parameter "view".' }] };

/** The dealer tool of either generation, recording what the view asked for. */
function fakeTool(withLevels: boolean): ToolCaller & { calls: Record<string, unknown>[] } {
  const all = history();
  const calls: Record<string, unknown>[] = [];
  return {
    calls,
    callServerTool: (_name, args) => {
      calls.push(args);
      if (args['view'] !== undefined && !withLevels) return Promise.resolve(refused);
      const offset = typeof args['cursor'] === 'string' ? Number(args['cursor']) : 0;
      const limit = Number(args['limit'] ?? 6);
      const full = args['view'] !== 'levels';
      const rows = all.slice(offset, offset + limit).map((r) =>
        full
          ? {
              ticker: 'SPY',
              state: 'final',
              spot_usd: r['spot_usd'],
              snapshot_at: r['snapshot_at'],
              session_date_et: r['session_date_et'],
              strikes: [{ strike_usd: 600, net_gex_usd: 1, node_type: 'king', rank: 1, relative_strength: 1 }],
              summary: {
                gamma_flip_usd: r['gamma_flip_usd'],
                king_strike_usd: 610,
                call_wall_strike_usd: 615,
                put_wall_strike_usd: 590,
                total_gex_usd: 1,
              },
            }
          : r,
      );
      return Promise.resolve(page(rows, offset + limit < all.length ? offset + limit : null));
    },
  };
}

test('with the levels view, the timeline reads every session in a few compact calls', async () => {
  const tool = fakeTool(true);
  const shape = shapeFromSchema({
    type: 'object',
    properties: { ticker: {}, view: { enum: ['newest', 'levels', 'full'] }, session_date: {}, from: {}, to: {}, limit: { maximum: 60 } },
  });
  const source = new TimelineSource(tool, 'SPY', shape);
  await source.loadThrough(undefined);
  assert.deepEqual(source.sessions(), SESSIONS);
  for (const session of SESSIONS) assert.equal(source.rows.filter((r) => r.session === session).length, 78);
  assert.equal(tool.calls.length, Math.ceil((78 * 3) / 60), 'one call per 60 rows');
  assert.ok(tool.calls.every((c) => c['view'] === 'levels' && c['ticker'] === 'SPY'));
});

test('without the schema, one try of the levels view decides, and a refusal falls back to full snapshots', async () => {
  const modern = fakeTool(true);
  const found = new TimelineSource(modern, 'SPY', undefined);
  await found.loadThrough(undefined);
  assert.equal(found.mode, 'levels');
  assert.equal(found.sessions().length, 3);

  const today = fakeTool(false);
  const source = new TimelineSource(today, 'SPY', undefined);
  await source.loadThrough(undefined);
  assert.equal(source.mode, 'full');
  assert.equal(today.calls.filter((c) => c['view'] !== undefined).length, 1, 'the levels view is tried once');
  assert.ok(source.complete('2026-11-20'), 'the newest session is read whole');
  assert.equal(source.rows.filter((r) => r.session === '2026-11-20').length, 78);
  assert.equal(source.complete('2026-11-19'), false, 'older sessions wait until asked for');
  const pagesForOne = today.calls.length;
  assert.ok(pagesForOne <= 12, `the newest session took ${pagesForOne} calls`);

  await source.loadThrough('2026-11-19');
  assert.ok(source.complete('2026-11-19'));
  assert.equal(source.rows.filter((r) => r.session === '2026-11-19').length, 78);
  assert.ok(
    today.calls.slice(1).every((c) => Number(c['limit']) <= 10),
    'full pages stay small enough for the result budget',
  );
  const before = today.calls.length;
  const newest = await source.newestOf('2026-11-19');
  assert.equal(newest?.at, '2026-11-19T16:00:00-05:00');
  assert.equal(today.calls.length, before, 'a snapshot already read is not fetched again');
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
