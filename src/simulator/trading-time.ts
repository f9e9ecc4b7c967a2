/**
 * An option's remaining life as a desk counts it: the minutes the exchange is open between
 * now and the expiry's close, in years of 252 sessions of 390 minutes. Counted in calendar
 * time a same-day contract kept about a fifth of its variance (6.5 h of 8,760 against one
 * session of 252), so a near-the-money 0DTE quote implied 0.42x the name's 30-day volatility
 * and a 1 % out-of-the-money call read 0.00/0.01 all session.
 */
import { nextTradingDay, sessionOn, toEt, type EtDate } from '../catalog/market-calendar.js';

/** Minutes in a full session: a trading year is 252 of them. */
const SESSION_MINUTES = 390;
const TRADING_YEAR_MINUTES = 252 * SESSION_MINUTES;

/** Open minutes of each date's session (0 on a closed day), memoised: the calendar is fixed. */
const openMinutes = new Map<EtDate, number>();
function minutesOpen(date: EtDate): number {
  let minutes = openMinutes.get(date);
  if (minutes === undefined) {
    const session = sessionOn(date);
    minutes = session ? session.closeMinutes - session.openMinutes : 0;
    if (openMinutes.size > 20_000) openMinutes.clear();
    openMinutes.set(date, minutes);
  }
  return minutes;
}

/** Minutes of `date`'s session left after `instant` (all of it before the open, none after the close). */
function minutesLeftOn(date: EtDate, instant: number): number {
  const session = sessionOn(date);
  if (!session) return 0;
  const from = Math.min(Math.max(instant, session.openAt), session.closeAt);
  return (session.closeAt - from) / 60_000;
}

/** Exchange-open minutes from `from` to `to` (an expiry's close), whatever lies between. */
export function tradingMinutesBetween(from: number, to: number): number {
  if (to <= from) return 0;
  const first = toEt(from).date;
  const last = toEt(to).date;
  if (first === last) {
    const session = sessionOn(first);
    if (!session) return 0;
    const start = Math.min(Math.max(from, session.openAt), session.closeAt);
    const end = Math.min(Math.max(to, session.openAt), session.closeAt);
    return Math.max(0, end - start) / 60_000;
  }
  let minutes = minutesLeftOn(first, from);
  for (let day = nextTradingDay(first); day < last; day = nextTradingDay(day)) minutes += minutesOpen(day);
  const lastSession = sessionOn(last);
  if (lastSession) minutes += Math.max(0, Math.min(to, lastSession.closeAt) - lastSession.openAt) / 60_000;
  return minutes;
}

/**
 * Trading years from `from` to `to`, floored at `floorMinutes` of trading time: a contract in
 * its last minutes keeps a price a desk would still quote instead of a division by nothing.
 */
export function tradingYearsBetween(from: number, to: number, floorMinutes = 5): number {
  return Math.max(tradingMinutesBetween(from, to), floorMinutes) / TRADING_YEAR_MINUTES;
}
