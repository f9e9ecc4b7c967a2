/**
 * How long an answer that can no longer change is kept, beyond its dataset's time-to-live:
 * a closed dealer session, a closed session's prints, a settled range of daily figures, a
 * short-interest disclosure until the next one is due, the quarters a company has filed
 * until its next one can be. Read again, it costs nothing: three closed dealer sessions
 * read a minute later cost their 4 units again when every answer lived 30 s.
 *
 * Decided per answer, from the request (under the upstream's own parameter names) and the
 * answer's content, with the trading calendar: the same query can be live or settled
 * depending on when it is asked and what came back. Kept at most MAX_KEEP_MS, and never
 * past the instant the answer could change (the next session's first snapshot, a session
 * leaving the three the dealer history retains, the next disclosure or filing).
 */
import { nextTradingDay, sessionOn, toEt, tradingDayOnOrBefore, type EtDate } from '../catalog/market-calendar.js';
import type { RoleNames } from '../catalog/param-roles.js';
import type { DatasetDefinition } from '../catalog/index.js';
import { rowsIn } from './payload-parts.js';

/** At most a week: longer than any weekend and holiday between two sessions, short of any retention. */
export const MAX_KEEP_MS = 7 * 24 * 60 * 60_000;
const DAY_MS = 24 * 60 * 60_000;
/** Daily figures of a session are settled once the day after it has closed (short volume publishes after the close). */
const SETTLE_MS = 60 * 60_000;

const DEALER_PATH = '/v1/derived/dealer-gex/{ticker}/history';
const FUNDAMENTALS_PATH = '/v1/fundamentals/fundamental-breakdown/{ticker}';
const SHORT_SCREENER_PATH = '/v1/shorts/short-screener';
/** The dealer history holds the latest three sessions (spec, endpoint 4). */
const DEALER_SESSIONS_HELD = 3;

type Row = Record<string, unknown>;
/** A query as sent, under the upstream's names (a list the document explodes is several values). */
type SentQuery = Readonly<Record<string, unknown>>;
const isRow = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);
const isDate = (value: unknown): value is EtDate => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);

/** The first instant a session opens after `now`. */
function nextOpen(now: number): number {
  let day = toEt(now).date;
  for (let i = 0; i < 10; i += 1) {
    const session = sessionOn(day);
    if (session && session.openAt > now) return session.openAt;
    day = nextTradingDay(day);
  }
  return now + DAY_MS;
}

/** When `date`'s session leaves the dealer history: the open of the third session after it. */
function leavesDealerHistory(date: EtDate): number {
  let day = date;
  for (let i = 0; i < DEALER_SESSIONS_HELD; i += 1) day = nextTradingDay(day);
  return sessionOn(day)?.openAt ?? Date.parse(`${day}T13:30:00Z`);
}

/** An offset or page number rather than a position in time: the page under it shifts as new rows arrive. */
const positional = (cursor: unknown): boolean => typeof cursor === 'number' || (typeof cursor === 'string' && /^\d+$/.test(cursor));

/**
 * A dealer page of closed sessions only. The newest page (no cursor) changes at the next
 * session's first snapshot; a page behind a cursor holds its snapshots until the oldest of
 * its sessions leaves the three the history retains. A cursor that is an offset is not
 * trusted to name the same snapshots later.
 */
function dealerPage(roles: RoleNames, query: SentQuery, data: unknown, now: number): number | undefined {
  const rows = (rowsIn(data) ?? []).filter(isRow);
  if (rows.length === 0) return undefined;
  let oldest: EtDate | undefined;
  for (const row of rows) {
    const date = row['session_date_et'];
    const state = row['state'];
    if (!isDate(date) || (state !== 'closed' && state !== 'final')) return undefined;
    const session = sessionOn(date);
    if (!session || session.closeAt > now) return undefined;
    if (oldest === undefined || date < oldest) oldest = date;
  }
  if (oldest === undefined) return undefined;
  const cursorName = roles.cursor;
  const cursor = cursorName === undefined ? undefined : query[cursorName];
  if (cursor === undefined || positional(cursor)) {
    // In a session's first minutes the newest page still holds the day before: today's first
    // snapshot is minutes away, so it is not kept past its dataset's time-to-live.
    const today = sessionOn(toEt(now).date);
    if (today && today.openAt <= now && now < today.closeAt) return undefined;
    return nextOpen(now) - now;
  }
  return leavesDealerHistory(oldest) - now;
}

/** The day a dated query is settled by: its session, or the end of its range (a range with no end reaches today). */
function settledDate(roles: RoleNames, query: SentQuery): EtDate | undefined {
  const session = roles.session === undefined ? undefined : query[roles.session];
  if (isDate(session)) return session;
  const end = roles.rangeEnd === undefined ? undefined : query[roles.rangeEnd];
  return isDate(end) ? end : undefined;
}

/** When the next short-interest disclosure after `settlement` can be out: its settlement (mid-month or month end) and a week of trading days. */
function nextDisclosureDue(settlement: EtDate): number {
  const [year, month] = settlement.split('-').map(Number);
  const y = year ?? 2000;
  const m = month ?? 1;
  const monthEnd = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  const nextMid = new Date(Date.UTC(y, m, 15)).toISOString().slice(0, 10);
  // Settlement dates: the 15th and the month's last day, or the trading day before either.
  const next = [`${settlement.slice(0, 7)}-15`, monthEnd, nextMid].map(tradingDayOnOrBefore).find((d) => d > settlement) ?? nextMid;
  let due = next;
  // The regulator publishes about seven trading days after settlement; five is the earliest seen.
  for (let i = 0; i < 5; i += 1) due = nextTradingDay(due);
  return sessionOn(due)?.openAt ?? Date.parse(`${due}T13:30:00Z`);
}

/** One value shared by every row, or undefined. */
function sharedValue(rows: readonly Row[], field: string): unknown {
  const values = new Set(rows.map((r) => r[field]));
  return values.size === 1 ? [...values][0] : undefined;
}

/**
 * Milliseconds this answer may be kept because it can no longer change, or undefined when it
 * may; `roles` are the dataset's parameter roles as the call's query names them (dataset-query.ts).
 */
export function immutableForMs(
  dataset: DatasetDefinition,
  roles: RoleNames,
  query: SentQuery,
  data: unknown,
  now: number,
): number | undefined {
  const keep = ((): number | undefined => {
    if (dataset.path === DEALER_PATH) return dealerPage(roles, query, data, now);
    const rows = (rowsIn(data) ?? (isRow(data) ? [data] : [])).filter(isRow);
    if (dataset.path === SHORT_SCREENER_PATH) {
      const settlement = sharedValue(rows, 'settlement_date');
      return isDate(settlement) ? nextDisclosureDue(settlement) - now : undefined;
    }
    if (dataset.path === FUNDAMENTALS_PATH) {
      // The next quarter ends three months after the newest filed; none reports within a week of its end.
      const ends = rows
        .map((r) => r['period_end'])
        .filter(isDate)
        .sort();
      const newest = ends[ends.length - 1];
      return newest === undefined ? undefined : Date.parse(`${newest}T12:00:00Z`) + (92 + 7) * DAY_MS - now;
    }
    // A closed session's prints, a range of settled days: nothing more will be added to them.
    const date = settledDate(roles, query);
    const session = date === undefined ? undefined : sessionOn(tradingDayOnOrBefore(date));
    if (!session || session.closeAt + SETTLE_MS > now || rows.length === 0) return undefined;
    const retention = dataset.retentionDays;
    return retention === undefined ? MAX_KEEP_MS : session.closeAt + retention * DAY_MS - now;
  })();
  return keep === undefined || keep <= 0 ? undefined : Math.min(keep, MAX_KEEP_MS);
}
