/**
 * A dark-pool time window against the prints the upstream returns, newest first and cut at
 * the limit: a window the prints read reach past is complete and says so; a window before
 * them, or reaching before them, says which part was not read and whether a larger limit
 * reaches it, never "ask a larger limit" at the maximum; units count the pages read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payloadParts } from '../../src/api/payload-parts.js';
import { previousTradingDay, toEt, tradingDayOnOrBefore } from '../../src/simulator/calendar.js';
import { get, withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';

type Row = Record<string, unknown>;
interface Answer {
  data: Row[];
  meta: { truncated: boolean; has_more?: boolean; more_rows?: string; notice?: string; units?: number };
}
const ET = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const clockOf = (row: Row): string => ET.format(new Date(String(row['executed_at'])));
/** A session that has closed, whatever the time of day the test runs. */
const closedSession = (): string => previousTradingDay(tradingDayOnOrBefore(toEt(Date.now()).date));
/** HH:MM `minutes` after `clock`. */
const later = (clock: string, minutes: number): string => {
  const [h = 0, m = 0] = clock.split(':').map(Number);
  const total = h * 60 + m + minutes;
  return `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;
};

test('dark-pool time windows: complete when the prints read reach past them; otherwise the part not read is named, with no false advice', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    const day = closedSession();
    const call = async (args: Record<string, unknown>): Promise<Answer> => {
      const mark = sim.api.requests.length;
      const result = await client.callTool({
        name: 'darkpool_by_ticker',
        arguments: { ticker: 'AAPL', session_date: day, fields: ['executed_at', 'notional_usd'], ...args },
      });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      const answer = result.structuredContent as Answer;
      const pages = sim.api.requests.slice(mark).filter((r) => r.path.startsWith('/v1/darkpool/')).length;
      assert.equal(answer.meta.units, pages, 'units count the pages read');
      return answer;
    };
    try {
      // What the upstream returns at its maximum limit: the newest prints, back to `oldest`.
      const page = payloadParts((await get(sim, `/v1/darkpool/by-ticker/AAPL?limit=500&session_date=${day}`)).body).data as Row[];
      const oldest = page.map(clockOf).reduce((a, b) => (b < a ? b : a));
      assert.ok(oldest > '10:30', `the newest 500 prints reach back to ${oldest}: the early window below must lie before them`);

      const covered = await call({ from_time: later(oldest, 30), min_notional_usd: 1_000_000 });
      assert.equal(covered.meta.has_more, false, 'the prints read reach past the window: nothing of it is left');
      assert.equal(covered.meta.more_rows, undefined);
      const expected = page.filter((r) => clockOf(r) >= later(oldest, 30) && Number(r['notional_usd']) >= 1_000_000);
      assert.ok(expected.length > 0);
      assert.equal(covered.data.length, expected.length, 'exactly the prints of the window');

      const early = await call({ from_time: '09:30', to_time: '10:30' });
      assert.deepEqual(early.data, []);
      assert.equal(early.meta.has_more, true, 'prints of the window exist that were not read');
      assert.match(early.meta.more_rows ?? '', new RegExp(`None of the window 09:30 to 10:30 ET was read.*${oldest} ET`));
      assert.doesNotMatch(early.meta.more_rows ?? '', /ask a larger limit|narrow with/, 'no advice that cannot reach the window');

      const partly = await call({ from_time: '10:00', limit: 100 });
      assert.equal(partly.meta.has_more, true);
      assert.match(partly.meta.more_rows ?? '', /not read.*ask a larger limit, up to 500/);
      const reached = await call({ from_time: '10:00' });
      assert.match(reached.meta.more_rows ?? '', new RegExp(`read only from ${oldest} ET on`), 'the default read is the largest page');
      assert.ok(reached.data.length > partly.data.length);
    } finally {
      await close();
    }
  });
});
