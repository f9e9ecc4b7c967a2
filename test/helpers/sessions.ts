/**
 * A whole past session for tests that read a time window of it: today's session, once open,
 * holds only the prints up to now, so a window like 13:00-16:00 ET is empty until the
 * afternoon. Asking for the last full session makes such a test mean the same at any hour.
 */
import { isHalfDay, isTradingDay, shiftDate, toEt, type EtDate } from '../../src/catalog/market-calendar.js';

/** The last full (not half-day) trading session before today, in ET. */
export function lastFullSession(now: number = Date.now()): EtDate {
  let date = shiftDate(toEt(now).date, -1);
  while (!isTradingDay(date) || isHalfDay(date)) date = shiftDate(date, -1);
  return date;
}
