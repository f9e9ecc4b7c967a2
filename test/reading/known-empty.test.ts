/**
 * An answer known to be empty by the calendar is given before any request, free, and says
 * why and which session is the latest; a trader's "today" before the open is named as such.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { beforeOpenNotice, knownEmptyDates } from '../../src/mcp/reading/known-empty.js';
import { isHalfDay, isTradingDay, previousTradingDay, sessionOn, shiftDate, toEt, weekday } from '../../src/catalog/market-calendar.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';

interface Answer {
  data: unknown[] | { sessions: unknown[] };
  meta: { notice?: string };
}

/** The latest Saturday before `date`. */
function lastSaturday(date: string): string {
  let day = shiftDate(date, -1);
  while (weekday(day) !== 6) day = shiftDate(day, -1);
  return day;
}

test('a future range, a weekend and a dealer session outside the three retained: empty, explained, and nothing sent', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const latest = await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY' } });
      const newest = (latest.structuredContent as { data: { session_date_et: string }[] }).data[0]?.session_date_et ?? '';
      assert.match(newest, /^\d{4}-\d{2}-\d{2}$/);
      const today = toEt(Date.now()).date;
      const saturday = lastSaturday(today);
      let older = newest;
      for (let i = 0; i < 10; i += 1) older = previousTradingDay(older);
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['market_total_options_volume', { from: shiftDate(today, 30) }, /in the future/],
        ['volatility_risk_reversal_skew', { ticker: 'TSLA', from: saturday, to: shiftDate(saturday, 1) }, /no exchange session/],
        ['darkpool_by_ticker', { ticker: 'AAPL', session_date: shiftDate(today, 7) }, /in the future/],
        ['derived_dealer_gex_history', { ticker: 'SPY', view: 'levels', session_date: older }, /older than the three sessions/],
      ];
      for (const [name, args, why] of cases) {
        const before = sim.api.requests.length;
        const result = await client.callTool({ name, arguments: args });
        assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result).slice(0, 300)}`);
        const answer = result.structuredContent as Answer;
        // Levels keep their shape: no session rows.
        assert.deepEqual(Array.isArray(answer.data) ? answer.data : answer.data.sessions, [], name);
        assert.match(answer.meta.notice ?? '', why, name);
        assert.ok(answer.meta.notice?.includes(newest), `${name} names the latest session ${newest}: ${answer.meta.notice}`);
        assert.equal(sim.api.requests.length, before, `${name}: no request sent`);
      }
    } finally {
      await close();
    }
  });
});

test("before the open, today is empty with a notice, and a latest-data call says its rows are the previous session's", () => {
  // Tuesday 2026-11-24, 08:00 ET: Monday's session is the latest.
  const beforeOpen = Date.parse('2026-11-24T13:00:00Z');
  assert.ok(isTradingDay('2026-11-24'));
  const empty = knownEmptyDates({ session_date: '2026-11-24' }, beforeOpen);
  assert.match(empty?.notice ?? '', /opens at 09:30 ET/);
  assert.match(empty?.notice ?? '', /2026-11-23/);
  assert.equal(
    knownEmptyDates({ session_date: '2026-11-24' }, Date.parse('2026-11-24T15:00:00Z')),
    undefined,
    'after the open it is asked',
  );
  assert.match(beforeOpenNotice({ cacheClass: 'intraday' }, {}, beforeOpen) ?? '', /from the latest session, 2026-11-23, not today/);
  assert.equal(beforeOpenNotice({ cacheClass: 'intraday' }, {}, Date.parse('2026-11-24T15:00:00Z')), undefined);
  assert.equal(beforeOpenNotice({ cacheClass: 'daily' }, {}, beforeOpen), undefined);
  // Thanksgiving: a holiday range is empty; filings may land on any day and are asked.
  assert.match(knownEmptyDates({ from: '2026-11-26', to: '2026-11-26' }, Date.parse('2026-12-01T15:00:00Z'))?.notice ?? '', /Thanksgiving/);
  assert.equal(knownEmptyDates({ from: '2026-11-26', to: '2026-11-26' }, Date.parse('2026-12-01T15:00:00Z'), false), undefined);
});

/** The latest half day (13:00 close) that has opened by `now`, and the latest weekday holiday before it. */
function latestHalfDayAndHoliday(now: number): { halfDay: string; holiday: string } {
  let halfDay = toEt(now).date;
  while (!isHalfDay(halfDay) || (halfDay === toEt(now).date && (sessionOn(halfDay)?.openAt ?? Infinity) > now))
    halfDay = shiftDate(halfDay, -1);
  let holiday = toEt(now).date;
  while (isTradingDay(holiday) || weekday(holiday) === 0 || weekday(holiday) === 6) holiday = shiftDate(holiday, -1);
  return { halfDay, holiday };
}

test("prints asked after a half day's 13:00 close and a chain expiring on a holiday: empty, explained, nothing sent", async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const { halfDay, holiday } = latestHalfDayAndHoliday(Date.now());
      const cases: [string, Record<string, unknown>, RegExp][] = [
        [
          'darkpool_by_ticker',
          { ticker: 'AAPL', session_date: halfDay, from_time: '15:00', to_time: '16:00' },
          /half day.*closed at 13:00 ET/,
        ],
        [
          'options_chain_history',
          { ticker: 'SPY', expiration: holiday, right: 'C', session_date: previousTradingDay(holiday) },
          /holiday.*no option expires/,
        ],
      ];
      for (const [name, args, why] of cases) {
        const before = sim.api.requests.length;
        const result = await client.callTool({ name, arguments: args });
        assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result).slice(0, 300)}`);
        const answer = result.structuredContent as Answer & { meta: { units?: number } };
        assert.deepEqual(answer.data, [], name);
        assert.match(answer.meta.notice ?? '', why, name);
        assert.equal(answer.meta.units, 0);
        assert.equal(sim.api.requests.length, before, `${name}: no request sent`);
      }
      // The same window on a half day's morning is asked, as is a chain expiring on a session.
      const before = sim.api.requests.length;
      const morning = await client.callTool({
        name: 'darkpool_by_ticker',
        arguments: { ticker: 'AAPL', session_date: halfDay, from_time: '10:00', to_time: '11:00' },
      });
      assert.notEqual(morning.isError, true);
      assert.ok(sim.api.requests.length > before, 'a window inside the half day is read from the API');
    } finally {
      await close();
    }
  });
});
