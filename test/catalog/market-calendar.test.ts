import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { etInstant, isHalfDay, isTradingDay, latestSession, nextTradingDay, sessionOn, toEt } from '../../src/catalog/market-calendar.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

test('the NYSE calendar: holidays with their weekend observance, and the 13:00 half days', () => {
  // Published NYSE closures and early closes (nyse.com/markets/hours-calendars).
  for (const closed of [
    '2026-01-01',
    '2026-01-19',
    '2026-02-16',
    '2026-04-03',
    '2026-05-25',
    '2026-06-19',
    '2026-07-03',
    '2026-09-07',
    '2026-11-26',
    '2026-12-25',
    '2027-12-24',
  ])
    assert.equal(isTradingDay(closed), false, closed);
  assert.equal(isTradingDay('2027-12-31'), true, "New Year's Day 2028 falls on a Saturday and is not observed on the Friday");
  assert.equal(isTradingDay('2026-11-21'), false, 'Saturday');
  for (const half of ['2026-11-27', '2026-12-24', '2025-07-03']) assert.equal(isHalfDay(half), true, half);
  assert.equal(sessionOn('2026-11-27')?.closeAt, etInstant('2026-11-27', 13 * 60));
  assert.equal(isHalfDay('2026-11-25'), false);
});

test('"now" resolves to the session in progress or the latest that has opened', () => {
  const sunday = Date.parse('2026-11-22T15:00:00Z');
  assert.equal(latestSession(sunday).date, '2026-11-20', 'Sunday reads Friday');
  const thanksgiving = Date.parse('2026-11-26T18:00:00Z');
  assert.equal(latestSession(thanksgiving).date, '2026-11-25');
  const tuesdayPreOpen = Date.parse('2026-11-24T13:00:00Z');
  assert.equal(latestSession(tuesdayPreOpen).date, '2026-11-23');
});

test('for any instant, the latest session has opened and no later session has', () => {
  fc.assert(
    fc.property(fc.integer({ min: Date.parse('2022-01-01'), max: Date.parse('2030-12-31') }), (now) => {
      const session = latestSession(now);
      assert.ok(isTradingDay(session.date));
      assert.ok(session.openAt <= now, 'opened');
      assert.equal(toEt(session.openAt).minutes, 9 * 60 + 30, 'opens 09:30 ET, in summer and winter');
      const next = sessionOn(nextTradingDay(session.date));
      assert.ok(next && next.openAt > now, 'the next session has not opened');
    }),
    { numRuns: 300 },
  );
});
