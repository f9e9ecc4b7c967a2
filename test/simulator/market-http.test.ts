/** The reference market through the simulator's HTTP API, on an injected clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { get, withSimulator } from '../helpers/http.js';

interface Body {
  data: Record<string, unknown>[];
  _meta: { next_cursor: string | null; data_freshness_seconds: number };
}

const SUNDAY = Date.parse('2026-11-22T15:00:00Z');
const FRIDAY_MIDDAY = Date.parse('2026-11-20T17:30:00Z');

test('on a Sunday every intraday dataset shows Friday’s session and says so', async () => {
  await withSimulator({ now: () => SUNDAY }, async (sim) => {
    const gex = (await get(sim, '/v1/derived/dealer-gex/SPY/history?limit=3')).body as Body;
    for (const snapshot of gex.data) {
      assert.equal(snapshot['session_date_et'], '2026-11-20');
      assert.equal(snapshot['state'], 'closed', 'a past session is closed, not live');
    }
    assert.equal(gex.data[0]?.['snapshot_at'], '2026-11-20T16:00:00-05:00', 'the last snapshot is the close');
    assert.ok(gex._meta.data_freshness_seconds > 40 * 3600, 'freshness tells how old Friday’s close is');
    const prints = (await get(sim, '/v1/stocks/lit-trades-recent?limit=5')).body as Body;
    for (const print of prints.data) assert.equal(print['session_date_et'], '2026-11-20');
    const fx = (await get(sim, '/v1/macro/forex-rate?pair=USDJPY')).body as { data: Record<string, unknown> };
    assert.equal(fx.data['as_of'], '2026-11-20T17:00:00-05:00');
    assert.equal(fx.data['market_open'], false);
  });
});

test('during a session the newest snapshot is live and none is in the future', async () => {
  await withSimulator({ now: () => FRIDAY_MIDDAY }, async (sim) => {
    const gex = (await get(sim, '/v1/derived/dealer-gex/QQQ/history?limit=5')).body as Body;
    assert.equal(gex.data[0]?.['state'], 'live');
    assert.ok(gex.data.length === 5 && gex.data.slice(1).every((s) => s['state'] === 'closed'));
    for (const snapshot of gex.data) assert.ok(Date.parse(String(snapshot['snapshot_at'])) <= FRIDAY_MIDDAY);
  });
});

test('the same fact is the same number across calls, pages and simulators of one seed', async () => {
  const read = (limit: number): Promise<Body> =>
    withSimulator(
      { now: () => SUNDAY, seed: 11 },
      async (sim) => (await get(sim, `/v1/shorts/short-screener?limit=${limit}`)).body as Body,
    );
  const small = await read(3);
  const large = await read(50);
  assert.deepEqual(small.data, large.data.slice(0, 3));
  await withSimulator({ now: () => SUNDAY, seed: 11 }, async (sim) => {
    const amc = (await get(sim, '/v1/shorts/volume-and-ratio/AMC?from=2026-11-02&to=2026-11-20')).body as Body;
    const again = (await get(sim, '/v1/shorts/volume-and-ratio/AMC?from=2026-11-16&to=2026-11-20')).body as Body;
    for (const day of again.data)
      assert.deepEqual(
        amc.data.find((d) => d['date'] === day['date']),
        day,
        'a day’s short ratio does not depend on the range asked',
      );
  });
});

test('dealer GEX paging neither repeats nor skips when a new snapshot lands between pages', async () => {
  let now = FRIDAY_MIDDAY;
  await withSimulator({ now: () => now }, async (sim) => {
    const first = (await get(sim, '/v1/derived/dealer-gex/SPY/history?limit=4')).body as Body;
    now += 5 * 60_000;
    const cursor = first._meta.next_cursor;
    assert.ok(cursor);
    const second = (await get(sim, `/v1/derived/dealer-gex/SPY/history?limit=4&cursor=${cursor}`)).body as Body;
    const stamps = [...first.data, ...second.data].map((s) => Date.parse(String(s['snapshot_at'])));
    for (let i = 1; i < stamps.length; i += 1) assert.equal((stamps[i - 1] ?? 0) - (stamps[i] ?? 0), 5 * 60_000);
  });
});
