/**
 * An answer that can no longer change is kept until it could (issue 32): three closed
 * dealer sessions read again a minute later cost nothing (they cost their 4 units again when
 * every dealer answer lived 30 s), and stay kept until the next session's first snapshot;
 * during a session only the page holding today's snapshots is read again. On a fake clock
 * shared by the simulator and the client, so minutes and days pass in milliseconds; the
 * client here sends the catalog's own parameters, so the simulator speaks the spec's dialect.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { etInstant } from '../../src/catalog/market-calendar.js';
import type { MarketDataClient } from '../../src/api/client.js';
import { callDataset } from '../../src/mcp/tools/dataset-tool.js';
import { immutableForMs } from '../../src/api/immutable-answers.js';
import { upstreamRoles } from '../../src/catalog/param-roles.js';
import { withSimulator } from '../helpers/http.js';
import { dataset, withClient } from '../helpers/client.js';
import { fakeTime, type FakeTime } from '../helpers/fake-time.js';
import { testCall } from '../helpers/call.js';

const dealer = dataset('derived.dealer_gex_history');
const MINUTE = 60_000;

function unitsOf(result: CallToolResult): number {
  return Number((result.structuredContent as { meta: { units: number } }).meta.units);
}

async function sessions(time: FakeTime, client: MarketDataClient): Promise<number> {
  const result = await time.run(
    // The dealer tool's own stages (screen, read, answer), as one call of it.
    callDataset(
      dealer,
      { ticker: 'SPY', view: 'sessions' },
      { client, resultTokens: 8000, simulated: true, call: testCall(), onProgress: undefined },
    ),
  );
  assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
  return unitsOf(result);
}

test('three closed dealer sessions read again two minutes later cost nothing, and are read anew after the next open', async () => {
  // Saturday 2026-11-21, noon ET: the three sessions held (Wed to Fri) are all closed.
  const time = fakeTime(60_000, 10, etInstant('2026-11-21', 12 * 60));
  await withSimulator({ dialect: 'spec', now: time.now, limits: { perWindow: 1000, perIpPerWindow: 1000 } }, async (sim) => {
    await withClient(
      sim,
      async ({ client }) => {
        assert.equal(await sessions(time, client), 4, 'three sessions of 78 snapshots: 4 pages of 60');
        await time.clock.advance(2 * MINUTE);
        assert.equal(await sessions(time, client), 0, 'two minutes later, from the cache');
        await time.clock.advance(26 * 60 * MINUTE);
        assert.equal(await sessions(time, client), 0, 'Sunday afternoon, still from the cache');
        // Monday 09:45 ET: a new session has snapshots, and the newest page is read again.
        await time.clock.advance(etInstant('2026-11-23', 9 * 60 + 45) - time.now());
        assert.ok((await sessions(time, client)) > 0, 'after the next open the history has moved on');
      },
      {},
      undefined,
      time.deps,
    );
  });
});

test('during a session a repeat reads only the page holding live snapshots again', async () => {
  // Tuesday 2026-11-24, 11:01 ET: today's 18 snapshots sit on the newest page with Monday's.
  const time = fakeTime(60_000, 10, etInstant('2026-11-24', 11 * 60 + 1));
  await withSimulator({ dialect: 'spec', now: time.now, limits: { perWindow: 1000, perIpPerWindow: 1000 } }, async (sim) => {
    await withClient(
      sim,
      async ({ client }) => {
        assert.ok((await sessions(time, client)) > 1, 'today, Monday and Friday: several pages');
        await time.clock.advance(MINUTE);
        assert.equal(await sessions(time, client), 1, 'the live page again; the closed pages behind it from the cache');
      },
      {},
      undefined,
      time.deps,
    );
  });
});

test('what is kept as settled, and for how long, by the calendar', () => {
  const saturday = etInstant('2026-11-21', 12 * 60);
  const closed = (date: string, at: string) => ({ ticker: 'SPY', snapshot_at: at, session_date_et: date, state: 'closed' });
  const page = [closed('2026-11-20', '2026-11-20T15:55:00-05:00'), closed('2026-11-19', '2026-11-19T15:55:00-05:00')];
  // The newest page: until Monday's open. Behind a cursor: until Thursday's session leaves the three held (Tuesday's open).
  assert.equal(
    immutableForMs(dealer, upstreamRoles(dealer), { limit: 60 }, page, saturday),
    etInstant('2026-11-23', 9 * 60 + 30) - saturday,
  );
  assert.equal(
    immutableForMs(dealer, upstreamRoles(dealer), { limit: 60, cursor: 'eyJ2IjoyfQ' }, page, saturday),
    etInstant('2026-11-24', 9 * 60 + 30) - saturday,
  );
  // An offset cursor names other snapshots once new ones arrive: kept only until the next open.
  assert.equal(
    immutableForMs(dealer, upstreamRoles(dealer), { limit: 60, cursor: '120' }, page, saturday),
    etInstant('2026-11-23', 9 * 60 + 30) - saturday,
  );
  // 09:32 on a trading day: the newest page still holds yesterday's closed snapshots, but today's first is due at 09:35.
  const monday = etInstant('2026-11-23', 9 * 60 + 32);
  assert.equal(
    immutableForMs(dealer, upstreamRoles(dealer), { limit: 1 }, [closed('2026-11-20', '2026-11-20T16:00:00-05:00')], monday),
    undefined,
  );
  // A live snapshot on the page: not settled.
  const tuesday = etInstant('2026-11-24', 11 * 60);
  assert.equal(
    immutableForMs(dealer, upstreamRoles(dealer), {}, [{ ...closed('2026-11-24', '2026-11-24T11:00:00-05:00'), state: 'live' }], tuesday),
    undefined,
  );
  // A closed session's prints are settled an hour after the close; today's are not.
  const prints = dataset('darkpool.by_ticker');
  assert.ok(
    (immutableForMs(prints, upstreamRoles(prints), { session_date: '2026-11-23' }, [{ size: 100 }], tuesday) ?? 0) > 24 * 60 * MINUTE,
  );
  assert.equal(immutableForMs(prints, upstreamRoles(prints), { session_date: '2026-11-24' }, [{ size: 100 }], tuesday), undefined);
  // A short-interest disclosure settled on the 13th: kept until the next one (settling the 30th) can be out.
  const screener = dataset('shorts.short_screener');
  const kept = immutableForMs(screener, upstreamRoles(screener), {}, [{ ticker: 'GME', settlement_date: '2026-11-13' }], tuesday) ?? 0;
  assert.ok(kept > 0 && tuesday + kept <= etInstant('2026-12-08', 9 * 60 + 30), `kept ${kept / 3_600_000} h`);
  // A company's filed quarters: kept while its next quarter cannot have been reported yet.
  const fundamentals = dataset('fundamentals.fundamental_breakdown');
  assert.ok(
    (immutableForMs(fundamentals, upstreamRoles(fundamentals), {}, [{ period_end: '2026-10-25' }], tuesday) ?? 0) > 24 * 60 * MINUTE,
  );
  assert.equal(immutableForMs(fundamentals, upstreamRoles(fundamentals), {}, [{ period_end: '2026-06-30' }], tuesday), undefined);
});
