/**
 * The MCP Apps views as a person sees them: Debian's chromium, a host page built on
 * ext-apps' AppBridge, the built server in --demo. Each check reads the screen (bars,
 * labels, order) against the structuredContent the tool returned.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { price } from '../../views/shared/format.js';
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

  // The timeline of the snapshot's session, fetched by the view itself through the host.
  const timeline = frame.locator(`svg[data-chart="timeline"][data-session="${newest.session_date_et}"]`);
  await timeline.waitFor();
  assert.equal(await timeline.locator('circle[data-at]').count(), sessionRows.length, 'every snapshot of the session is a point');
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
