/**
 * The MCP Apps views as a person sees them: Debian's chromium, a host page built on
 * ext-apps' AppBridge, the built server in --demo. Each check reads the screen (bars,
 * labels, order) against the structuredContent the tool returned.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { price } from '../../views/shared/format.js';
import { sessionMinutes } from '../../views/dealer-gex/model.js';
import {
  attributes,
  bodyContrast,
  connectUiClient,
  mountView,
  openHost,
  screenshot,
  setTheme,
  SHOTS,
  skipReason,
  view,
  type Browser,
  type UiClient,
} from './harness.js';

const skip = skipReason();
if (skip) console.error(`# browser tests skipped: ${skip}`);

let ui: UiClient;
let browser: Browser;

before(async () => {
  if (skip) return;
  ui = await connectUiClient();
  browser = await openHost(ui);
  console.error(`# view screenshots in ${SHOTS}`);
});

after(async () => {
  await browser?.close();
  await ui?.close();
});

type Row = Record<string, unknown>;

function rows(result: CallToolResult): Row[] {
  const data = (result.structuredContent as { data?: unknown } | undefined)?.data;
  return Array.isArray(data) ? (data as Row[]) : [];
}

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const result = await ui.client.callTool({ name, arguments: args });
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return result;
}

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function boxesOf(locator: ReturnType<ReturnType<typeof view>['locator']>): Promise<{ text: string; box: Box }[]> {
  const out: { text: string; box: Box }[] = [];
  for (let i = 0; i < (await locator.count()); i += 1) {
    const item = locator.nth(i);
    const box = await item.boundingBox();
    if (box) out.push({ text: (await item.textContent()) ?? '', box });
  }
  return out;
}

/** The gamma chart's level labels (walls, spot, flip, king) clear of both axes' labels and inside the chart. */
async function assertLabelsClearOfAxes(frame: ReturnType<typeof view>): Promise<void> {
  const chart = frame.locator('svg[data-chart="gex"]');
  const bounds = await chart.boundingBox();
  assert.ok(bounds);
  const labels = await boxesOf(chart.locator('[data-wall], [data-marker]'));
  const axes = await boxesOf(chart.locator('[data-axis]'));
  assert.ok(labels.length >= 4 && axes.length >= 4, `${labels.length} labels, ${axes.length} axis labels`);
  for (const label of labels) {
    assert.ok(
      label.box.x >= bounds.x - 0.5 && label.box.x + label.box.width <= bounds.x + bounds.width + 0.5,
      `${label.text} runs off the chart`,
    );
    for (const axis of axes) assert.ok(!overlaps(label.box, axis.box), `"${label.text}" lies over the axis label "${axis.text}"`);
  }
}

async function assertLooksRight(name: string, theme: 'light' | 'dark'): Promise<void> {
  const contrast = await bodyContrast(browser);
  assert.ok(contrast.ratio >= 4.5, `${name}: text contrast ${contrast.ratio.toFixed(2)} is below 4.5`);
  if (theme === 'dark') assert.ok(contrast.backgroundLuminance < 0.1, `${name}: a dark host gets a dark view`);
  else assert.ok(contrast.backgroundLuminance > 0.8, `${name}: a light host gets a light view`);
  const shot = await screenshot(browser, name);
  assert.ok(
    shot.colours > 20 && shot.inked > 0.02,
    `${name}: the screenshot ${shot.path} looks blank (${shot.colours} colours, ${(shot.inked * 100).toFixed(1)} % inked)`,
  );
}

test('dealer gamma view: a bar for every strike, levels labelled with their values, snapshots and sessions switch', { skip }, async () => {
  const args = { ticker: 'SPY' };
  const result = await call('derived_dealer_gex_history', args);
  const snapshots = rows(result) as {
    snapshot_at: string;
    session_date_et: string;
    spot_usd: number;
    strikes: { strike_usd: number }[];
    summary: Record<string, number>;
  }[];
  const newest = snapshots[0];
  assert.ok(newest, 'the tool returned a snapshot');
  // The newest session as the compact levels view gives it: what the timeline is drawn from.
  const levels = (await call('derived_dealer_gex_history', { ...args, view: 'levels' })).structuredContent as {
    data: { columns: string[]; sessions: { session_date_et: string; rows: (string | number)[][] }[] };
  };
  const column = (name: string): number => levels.data.columns.indexOf(name);
  const sessionRows = levels.data.sessions.find((s) => s.session_date_et === newest.session_date_et)?.rows ?? [];
  assert.ok(sessionRows.length > 0, 'the levels view has rows for the newest snapshot’s session');
  await mountView(browser, ui, 'derived_dealer_gex_history', args, result);
  const frame = view(browser);

  const bars = frame.locator('svg[data-chart="gex"] rect[data-strike]');
  await bars.first().waitFor();
  const drawn = (await attributes(bars, 'data-strike')).map(Number).sort((a, b) => a - b);
  assert.deepEqual(
    drawn,
    newest.strikes.map((s) => s.strike_usd).sort((a, b) => a - b),
    'one bar per strike of the snapshot',
  );

  const legend = async (key: string): Promise<string> => (await frame.locator(`[data-level="${key}"] b`).textContent()) ?? '';
  assert.equal(await legend('spot'), price(newest.spot_usd));
  assert.equal(await legend('flip'), price(newest.summary['gamma_flip_usd'] ?? NaN));
  assert.equal(await legend('king'), price(newest.summary['king_strike_usd'] ?? NaN));
  assert.equal(await legend('call-wall'), price(newest.summary['call_wall_strike_usd'] ?? NaN));
  assert.equal(await legend('put-wall'), price(newest.summary['put_wall_strike_usd'] ?? NaN));
  assert.equal(await frame.locator('[data-marker="flip"]').textContent(), `Flip ${price(newest.summary['gamma_flip_usd'] ?? NaN)}`);
  assert.equal(
    await frame.locator('[data-wall="call"]').textContent(),
    `Call wall ${price(newest.summary['call_wall_strike_usd'] ?? NaN)}`,
  );
  assert.equal(await frame.locator('[data-wall="put"]').textContent(), `Put wall ${price(newest.summary['put_wall_strike_usd'] ?? NaN)}`);
  await assertLabelsClearOfAxes(frame);

  // The timeline of the snapshot's session, fetched by the view itself through the host.
  const timeline = frame.locator(`svg[data-chart="timeline"][data-session="${newest.session_date_et}"]`);
  await timeline.waitFor();
  assert.equal(await timeline.locator('circle[data-at]').count(), sessionRows.length, 'every snapshot of the session is a point');
  // The time axis ends at this session's close (13:00 on a half day), and no point lies past it.
  const closeHour = Math.floor(sessionMinutes(newest.session_date_et)[1] / 60);
  assert.equal(await timeline.locator('[data-axis="time"]').last().textContent(), `${closeHour}:00`);
  const lastTick = Number(await timeline.locator('[data-axis="time"]').last().getAttribute('x'));
  const xs = (await attributes(timeline.locator('circle[data-at]'), 'cx')).map(Number);
  assert.ok(Math.max(...xs) <= lastTick + 0.5, 'no snapshot is drawn past the close');
  assert.equal(await timeline.locator(`circle[data-at="${newest.snapshot_at}"]`).count(), 1, 'the shown snapshot is on the timeline');
  await assertLooksRight('dealer-gex-light', 'light');

  // Another snapshot without a new question: the one before along the timeline, its strikes and its levels.
  const earlier = sessionRows[1];
  if (earlier) {
    await frame.locator('button[data-step="earlier"]').click();
    await frame.locator('p.sub', { hasText: `(${String(earlier[column('time_et')])} ET` }).waitFor();
    assert.equal(await legend('flip'), price(Number(earlier[column('gamma_flip_usd')])));
    assert.equal(await legend('spot'), price(Number(earlier[column('spot_usd')])));
    assert.ok((await bars.count()) > 0, 'the earlier snapshot has its bars');
  }

  // Another session: the timeline switches to that day, whole, and the bars follow.
  const other = frame.locator('[data-sessions] button[data-session]:not([aria-pressed="true"])').first();
  const picked = (await other.getAttribute('data-session')) ?? '';
  assert.ok(picked < newest.session_date_et, `an older session is offered (${picked})`);
  await other.click();
  const switched = frame.locator(`svg[data-chart="timeline"][data-session="${picked}"]`);
  await switched.waitFor();
  const times = await attributes(switched.locator('circle[data-at]'), 'data-at');
  const sessionsOfPoints = new Set(await attributes(switched.locator('circle[data-at]'), 'data-session'));
  assert.deepEqual([...sessionsOfPoints], [picked], 'every point belongs to the chosen session');
  const minutes = times.map((t) => Date.parse(t) / 60_000).sort((a, b) => a - b);
  assert.ok(
    minutes.length > 1 && minutes.every((m, i) => i === 0 || m - (minutes[i - 1] ?? 0) === 5),
    'a past session whole: a point every 5 minutes, no gap',
  );
  assert.ok(
    times.some((t) => t.includes('T09:3') || t.includes('T09:4')),
    'from the open',
  );
  assert.equal(await frame.locator('[data-sessions] button[aria-pressed="true"]').getAttribute('data-session'), picked);
  await frame.locator('p.sub', { hasText: `session ${picked}` }).waitFor();

  // A point of the timeline: the bars and levels switch to that snapshot.
  const noon = times.find((t) => t.includes('T12:00')) ?? times[0] ?? '';
  const point = switched.locator(`circle[data-at="${noon}"]`);
  const tip = (await point.locator('title').textContent()) ?? '';
  await point.click();
  await frame.locator('p.sub', { hasText: `Snapshot ${noon}` }).waitFor();
  assert.ok(tip.includes(`spot ${await legend('spot')}`), `the legend's spot is the clicked point's (${tip})`);
  assert.ok((await frame.locator('svg[data-chart="gex"] rect[data-strike]').count()) > 0);

  await setTheme(browser, 'dark');
  await frame.locator('html[data-theme="dark"]').waitFor();
  await assertLooksRight('dealer-gex-dark', 'dark');
  assert.deepEqual(browser.requests, [], 'no network request from the host page or the view');
});

test('short interest view: screener bars in rank order, then a ticker’s short volume ratio', { skip }, async () => {
  const args = { limit: 12 };
  const result = await call('shorts_short_screener', args);
  const screener = rows(result) as { ticker: string; short_float_pct: number; days_to_cover: number }[];
  assert.ok(screener.length > 3);
  await mountView(browser, ui, 'shorts_short_screener', args, result);
  const frame = view(browser);
  const groups = frame.locator('svg[data-chart="screener"] g[data-ticker]');
  await groups.first().waitFor();

  const order = (): Promise<string[]> => attributes(groups, 'data-ticker');
  const byFloat = [...screener].sort((a, b) => b.short_float_pct - a.short_float_pct).map((r) => r.ticker);
  assert.deepEqual(await order(), byFloat, 'ranked by short % of float, highest first');
  const values = (await attributes(frame.locator('rect[data-measure="short-float-pct"]'), 'data-value')).map(Number);
  assert.deepEqual(
    values,
    [...values].sort((a, b) => b - a),
  );
  await assertLooksRight('short-interest-light', 'light');

  await frame.locator('button[data-rank-by="daysToCover"]').click();
  await frame.locator('svg[data-chart="screener"][data-rank-by="daysToCover"]').waitFor();
  const byDays = [...screener].sort((a, b) => b.days_to_cover - a.days_to_cover).map((r) => r.ticker);
  assert.deepEqual(await order(), byDays, 'ranked by days to cover when asked');

  const ticker = byDays[0] ?? '';
  await frame.locator(`g[data-ticker="${ticker}"]`).click();
  await frame.locator(`[data-detail="${ticker}"]`).waitFor();
  const series = rows(await call('shorts_volume_and_ratio', { ticker })) as { date: string; short_ratio: number }[];
  const ratioBars = frame.locator('svg[data-chart="ratio"] rect[data-date]');
  const dates = await attributes(ratioBars, 'data-date');
  const ratios = (await attributes(ratioBars, 'data-ratio')).map(Number);
  assert.deepEqual(
    dates.map((date, i) => [date, ratios[i]]),
    [...series].sort((a, b) => (a.date < b.date ? -1 : 1)).map((r) => [r.date, r.short_ratio]),
    'one bar per day, oldest first, at the ratio the tool returned',
  );

  await setTheme(browser, 'dark');
  await frame.locator('html[data-theme="dark"]').waitFor();
  await assertLooksRight('short-interest-dark', 'dark');
});

test('short volume by venue: stacked bars per day and venue, and the ratio of the same ticker', { skip }, async () => {
  const args = { ticker: 'GME' };
  const result = await call('shorts_volumes_by_exchange', args);
  await mountView(browser, ui, 'shorts_volumes_by_exchange', args, result, 'dark');
  const frame = view(browser);
  await frame.locator('[data-detail="GME"]').waitFor();
  const venueRows = rows(result).filter((r) => typeof r['venue'] === 'string');
  assert.equal(await frame.locator('svg[data-chart="venues"] rect[data-venue]').count(), venueRows.length, 'one segment per day and venue');
  assert.ok((await frame.locator('svg[data-chart="ratio"] rect[data-date]').count()) > 0);
  await assertLooksRight('short-volume-by-venue-dark', 'dark');
  assert.deepEqual(browser.requests, [], 'no network request from the host page or the view');
});

test(
  "dealer gamma view: a wall on the chart's longest bar, at either end of the strikes, is labelled clear of both axes",
  { skip },
  async () => {
    // The put wall as the longest negative bar at the lowest strike, the call wall nearly as long at
    // the highest: where labels ran over the strike axis and off the chart's edges.
    const newest = rows(await call('derived_dealer_gex_history', { ticker: 'SPY' }))[0] as { snapshot_at: string; session_date_et: string };
    const strikes = Array.from({ length: 25 }, (_, i) => {
      const strike = 580 + 2 * i;
      const gex = i === 0 ? -2e9 : i === 24 ? 1.9e9 : (i - 12) * 4e7;
      return {
        strike_usd: strike,
        net_gex_usd: gex,
        node_type: i === 0 ? 'put_wall' : i === 24 ? 'call_wall' : gex >= 0 ? 'positive' : 'negative',
        rank: 1,
        relative_strength: 1,
      };
    });
    const snapshot = {
      ticker: 'SPY',
      snapshot_at: newest.snapshot_at,
      session_date_et: newest.session_date_et,
      state: 'closed',
      spot_usd: 604.1,
      summary: {
        total_gex_usd: -1e8,
        king_strike_usd: 580,
        gamma_flip_usd: 605.3,
        call_wall_strike_usd: 628,
        put_wall_strike_usd: 580,
        major_positive_strike_usd: 628,
        major_negative_strike_usd: 580,
      },
      strikes,
    };
    const structured = { data: [snapshot], meta: { truncated: false } };
    await mountView(
      browser,
      ui,
      'derived_dealer_gex_history',
      { ticker: 'SPY' },
      { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured },
    );
    const frame = view(browser);
    await frame.locator('[data-wall="put"]').waitFor();
    assert.equal(await frame.locator('[data-wall="put"]').textContent(), `Put wall ${price(580)}`);
    await assertLabelsClearOfAxes(frame);
    await screenshot(browser, 'dealer-gex-walls-at-the-edges');
  },
);
