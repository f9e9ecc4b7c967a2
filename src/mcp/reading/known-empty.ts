/**
 * Answers known to be empty, given here before any request, for free: a range or session
 * that holds no exchange session by the calendar (in the future, a weekend, a holiday),
 * an intraday dataset asked for today before the open, a time window after a half day's
 * early close, an option expiring on a day with no session, and a dealer session outside
 * the three the history retains. Each says why and names the latest session, so the agent
 * asks again for a date that has data instead of reading `data: []` as "nothing happened".
 *
 * The trading calendar is catalog/market-calendar.ts: pure date arithmetic (NYSE holidays,
 * half days), shared with the simulator rather than kept twice.
 */
import type { DatasetDefinition, QueryValues } from '../../catalog/index.js';
import {
  holidayName,
  isTradingDay,
  latestSession,
  previousTradingDay,
  recentSessions,
  sessionOn,
  toEt,
  tradingDaysBetween,
  weekday,
} from '../../catalog/market-calendar.js';

export interface KnownEmpty {
  notice: string;
  covers: string;
}

const isDate = (value: unknown): value is string => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);

function whyNoSession(date: string): string {
  const holiday = holidayName(date);
  if (holiday) return `${date} is ${holiday}, an exchange holiday`;
  const day = weekday(date);
  return day === 0 || day === 6 ? `${date} is a ${day === 0 ? 'Sunday' : 'Saturday'}` : `${date} is not an exchange session`;
}

/** The expiry an OSI contract symbol names (root, YYMMDD, C/P, strike), as an ET date. */
function contractExpiry(contract: unknown): string | undefined {
  if (typeof contract !== 'string') return undefined;
  const match = /^[A-Z0-9]{1,6}(\d{2})(\d{2})(\d{2})[CP]\d{8}$/.exec(contract);
  return match ? `20${match[1]}-${match[2]}-${match[3]}` : undefined;
}

/** An option expiry on a day with no session: no contract expires then, so its chain has no quotes. */
function noExpiryThen(query: QueryValues): KnownEmpty | undefined {
  const expiry = isDate(query['expiration']) ? query['expiration'] : contractExpiry(query['contract']);
  if (!isDate(expiry) || isTradingDay(expiry)) return undefined;
  return {
    covers: `expiration ${expiry}`,
    notice: `No data: ${whyNoSession(expiry)}, and no option expires on a day without a session; that week's contracts expire ${previousTradingDay(expiry)} (ET). Nothing was charged.`,
  };
}

/** For a dataset's session_date or from/to (ET dates), or an option expiry: the reason its answer must be empty, or undefined. */
export function knownEmptyDates(query: QueryValues, now: number, sessionsOnly = true): KnownEmpty | undefined {
  const expiry = noExpiryThen(query);
  if (expiry) return expiry;
  const session = query['session_date'];
  const from = query['from'];
  const to = query['to'];
  // A call that names no date is judged by nothing here: the calendar is not read for it.
  if (!isDate(session) && !isDate(from) && !isDate(to)) return undefined;
  const latest = latestSession(now);
  const today = toEt(now).date;
  const named = `The latest session is ${latest.date} (ET).`;
  if (isDate(session)) {
    const covers = `session ${session} (ET)`;
    if (session > today) return { covers, notice: `No data: ${session} is in the future. ${named} Nothing was charged.` };
    if (session === today && session !== latest.date && isTradingDay(session))
      return { covers, notice: `No data yet: today's session (${session}) opens at 09:30 ET. ${named} Nothing was charged.` };
    if (sessionsOnly && !isTradingDay(session))
      return { covers, notice: `No data: ${whyNoSession(session)}, no session. ${named} Nothing was charged.` };
    return undefined;
  }
  const covers = `${isDate(from) ? from : 'oldest'} to ${isDate(to) ? to : 'latest'}`;
  if (isDate(from) && (from > today || (sessionsOnly && from > latest.date))) {
    const why = from > today ? `${from} is in the future` : `today's session (${from}) has not opened yet`;
    return { covers, notice: `No data: ${why}. ${named} Nothing was charged.` };
  }
  if (
    sessionsOnly &&
    isDate(from) &&
    isDate(to) &&
    from <= to &&
    tradingDaysBetween(from, to < latest.date ? to : latest.date, 1).length === 0
  ) {
    const only = from === to ? whyNoSession(from) : `${from} to ${to} holds no exchange session (weekend or holiday)`;
    return { covers, notice: `No data: ${only}. ${named} Nothing was charged.` };
  }
  return undefined;
}

/**
 * A time of day window (ET HH:MM) that starts after a half day's early close: the session
 * ended at 13:00 and printed nothing later (a query for 15:00-16:00 prints came back empty
 * and charged). The session is the one asked, or the latest.
 */
export function knownEmptyWindow(query: QueryValues, window: { fromTime?: string | undefined }, now: number): KnownEmpty | undefined {
  const from = window.fromTime;
  if (from === undefined) return undefined;
  const asked = query['session_date'];
  const session = isDate(asked) ? sessionOn(asked) : latestSession(now);
  if (!session?.halfDay) return undefined;
  const close = `${String(Math.floor(session.closeMinutes / 60)).padStart(2, '0')}:${String(session.closeMinutes % 60).padStart(2, '0')}`;
  if (from < close) return undefined;
  return {
    covers: `session ${session.date} (ET), from ${from}`,
    notice: `No prints: ${session.date} was a half day and its session closed at ${close} ET, before ${from}. Nothing was charged.`,
  };
}

/** For the dealer history: a session or date range outside the latest three sessions it retains. */
export function knownEmptyDealer(window: { session?: string; from?: string; to?: string }, now: number): KnownEmpty | undefined {
  const held = recentSessions(now, 3).map((s) => s.date);
  const newest = held[0];
  const oldest = held[held.length - 1];
  if (!newest || !oldest) return undefined;
  const list = `Sessions held (ET, newest first): ${held.join(', ')}; the latest is ${newest}. Nothing was charged.`;
  if (window.session && !held.includes(window.session)) {
    const why =
      window.session > newest
        ? `${window.session} has no snapshots yet`
        : !isTradingDay(window.session)
          ? `${whyNoSession(window.session)}, no session`
          : `${window.session} is older than the three sessions the history retains`;
    return { covers: `session ${window.session} (ET)`, notice: `No snapshots: ${why}. ${list}` };
  }
  // Only date bounds are judged here: a time of day is compared with the snapshots themselves.
  const from = window.from?.length === 10 ? window.from : undefined;
  const to = window.to?.length === 10 ? window.to : undefined;
  // A range that holds none of the retained sessions: before them, after them, or between
  // two of them (a weekend, a holiday).
  if (!window.session && (from || to) && !held.some((d) => (!from || d >= from) && (!to || d <= to))) {
    const outside = (to && to < oldest) || (from && from > newest);
    return {
      covers: `${window.from ?? 'oldest'} to ${window.to ?? 'latest'}`,
      notice: `No snapshots from ${window.from ?? 'the oldest'} to ${window.to ?? 'the latest'}: ${outside ? 'outside the three sessions the history retains' : 'no session of the three the history retains falls in it (a weekend or holiday)'}. ${list}`,
    };
  }
  return undefined;
}

/** Whether a dataset's rows fall only on exchange sessions (filings and disclosures may land on any day). */
export function followsSessions(dataset: Pick<DatasetDefinition, 'cacheClass' | 'operationId'>): boolean {
  return dataset.cacheClass !== 'filings' && !dataset.operationId.startsWith('congress.');
}

/**
 * An intraday dataset asked for the latest data before today's open answers with the
 * previous session: say which, so its rows are not read as today's.
 */
export function beforeOpenNotice(dataset: Pick<DatasetDefinition, 'cacheClass'>, query: QueryValues, now: number): string | undefined {
  if (dataset.cacheClass !== 'intraday' || query['session_date'] !== undefined) return undefined;
  const today = toEt(now).date;
  const latest = latestSession(now);
  if (latest.date === today || !isTradingDay(today)) return undefined;
  return `Before today's open (09:30 ET): these rows are from the latest session, ${latest.date}, not today.`;
}
