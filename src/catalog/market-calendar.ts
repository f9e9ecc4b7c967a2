/**
 * The US equity trading calendar in Eastern time: weekends, the NYSE holidays (with their
 * weekend observance), the 13:00 half days, and the instants sessions open and close.
 * Everything the simulator stamps with a time goes through here, so no print, quote or
 * snapshot lands outside a session; the server reads the same calendar against a real
 * upstream (answers known empty, retention of closed sessions), so it lives with the catalog.
 */

/** An ET calendar date, YYYY-MM-DD. */
export type EtDate = string;

export interface Session {
  readonly date: EtDate;
  /** Minutes after ET midnight: 570 (09:30). */
  readonly openMinutes: number;
  /** 960 (16:00), or 780 (13:00) on a half day. */
  readonly closeMinutes: number;
  readonly openAt: number;
  readonly closeAt: number;
  readonly halfDay: boolean;
}

export const OPEN_MINUTES = 9 * 60 + 30;
export const CLOSE_MINUTES = 16 * 60;
export const HALF_DAY_CLOSE_MINUTES = 13 * 60;

// Built on first use: loading the time-zone data takes ~20 ms, off --demo's first answer.
let etParts: Intl.DateTimeFormat | undefined;
const etFormat = (): Intl.DateTimeFormat =>
  (etParts ??= new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/New_York',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
  }));

type EtTime = { date: EtDate; minutes: number; offset: string };

/**
 * The last minute converted: what toEt returns changes only from one minute to the next, and
 * the server asks for "now" on every call (Intl's formatToParts costs tens of microseconds).
 */
let lastMinute: { minute: number; et: EtTime } | undefined;

/** The ET calendar date, minutes after midnight and UTC offset ("-05:00") of an instant. */
export function toEt(instant: number): EtTime {
  const minute = Math.floor(instant / 60_000);
  if (lastMinute?.minute !== minute) lastMinute = { minute, et: formatEt(instant) };
  return { ...lastMinute.et };
}

function formatEt(instant: number): EtTime {
  const parts = Object.fromEntries(
    etFormat()
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  const offset = (parts['timeZoneName'] ?? 'GMT-05:00').replace('GMT', '') || '+00:00';
  return {
    date: `${parts['year']}-${parts['month']}-${parts['day']}`,
    minutes: Number(parts['hour']) * 60 + Number(parts['minute']),
    offset,
  };
}

const offsetCache = new Map<EtDate, string>();

/** The UTC offset of ET on a date, taken at noon (DST switches at 02:00, never mid-session). */
export function etOffset(date: EtDate): string {
  const cached = offsetCache.get(date);
  if (cached !== undefined) return cached;
  const offset = toEt(Date.parse(`${date}T17:00:00Z`)).offset;
  if (offsetCache.size > 50_000) offsetCache.clear();
  offsetCache.set(date, offset);
  return offset;
}

/** The instant of `minutes` after ET midnight on `date`. */
export function etInstant(date: EtDate, minutes: number): number {
  const offset = etOffset(date);
  const sign = offset.startsWith('-') ? -1 : 1;
  const [hours, mins] = offset.slice(1).split(':').map(Number);
  const offsetMs = sign * ((hours ?? 0) * 60 + (mins ?? 0)) * 60_000;
  return Date.parse(`${date}T00:00:00Z`) + minutes * 60_000 - offsetMs;
}

/** ISO 8601 with the ET offset, as a trader reads it: 2026-11-20T15:55:00-05:00 (milliseconds on request). */
export function etIso(instant: number, withMs = false): string {
  const et = toEt(instant);
  const seconds = Math.floor((instant % 60_000) / 1000);
  const hh = String(Math.floor(et.minutes / 60)).padStart(2, '0');
  const mm = String(et.minutes % 60).padStart(2, '0');
  const ms = withMs ? `.${String(instant % 1000).padStart(3, '0')}` : '';
  return `${et.date}T${hh}:${mm}:${String(seconds).padStart(2, '0')}${ms}${et.offset}`;
}

export function shiftDate(date: EtDate, days: number): EtDate {
  const shifted = new Date(`${date}T12:00:00Z`);
  shifted.setUTCDate(shifted.getUTCDate() + days);
  return shifted.toISOString().slice(0, 10);
}

/** 0 = Sunday ... 6 = Saturday. */
export function weekday(date: EtDate): number {
  return new Date(`${date}T12:00:00Z`).getUTCDay();
}

function ymd(year: number, month: number, day: number): EtDate {
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The n-th given weekday of a month (n = -1: the last). */
function nthWeekday(year: number, month: number, day: number, n: number): EtDate {
  if (n > 0) {
    const first = weekday(ymd(year, month, 1));
    return ymd(year, month, 1 + ((day - first + 7) % 7) + (n - 1) * 7);
  }
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const last = weekday(ymd(year, month, lastDay));
  return ymd(year, month, lastDay - ((last - day + 7) % 7));
}

/** Easter Sunday (anonymous Gregorian algorithm), for Good Friday. */
function easter(year: number): EtDate {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return ymd(year, month, day);
}

/** A fixed-date holiday on a Saturday is observed the Friday before, on a Sunday the Monday after. */
function observed(date: EtDate): EtDate {
  const day = weekday(date);
  if (day === 6) return shiftDate(date, -1);
  if (day === 0) return shiftDate(date, 1);
  return date;
}

const holidayCache = new Map<number, Map<EtDate, string>>();

/** NYSE full-day closures of a year, by date, with their names. */
export function holidays(year: number): ReadonlyMap<EtDate, string> {
  const cached = holidayCache.get(year);
  if (cached) return cached;
  const list: [EtDate, string][] = [
    [nthWeekday(year, 1, 1, 3), 'Martin Luther King Jr. Day'],
    [nthWeekday(year, 2, 1, 3), "Washington's Birthday"],
    [shiftDate(easter(year), -2), 'Good Friday'],
    [nthWeekday(year, 5, 1, -1), 'Memorial Day'],
    [observed(ymd(year, 7, 4)), 'Independence Day'],
    [nthWeekday(year, 9, 1, 1), 'Labor Day'],
    [nthWeekday(year, 11, 4, 4), 'Thanksgiving Day'],
    [observed(ymd(year, 12, 25)), 'Christmas Day'],
  ];
  // New Year's Day on a Saturday is not observed on the Friday before (NYSE rule 7.2).
  const newYear = ymd(year, 1, 1);
  if (weekday(newYear) !== 6) list.push([observed(newYear), "New Year's Day"]);
  if (year >= 2022) list.push([observed(ymd(year, 6, 19)), 'Juneteenth']);
  const map = new Map(list);
  holidayCache.set(year, map);
  return map;
}

export function holidayName(date: EtDate): string | undefined {
  return holidays(Number(date.slice(0, 4))).get(date);
}

export function isTradingDay(date: EtDate): boolean {
  const day = weekday(date);
  return day !== 0 && day !== 6 && holidayName(date) === undefined;
}

/** 13:00 closes: July 3 (when the 4th is a weekday), the day after Thanksgiving, Christmas Eve. */
export function isHalfDay(date: EtDate): boolean {
  if (!isTradingDay(date)) return false;
  const year = Number(date.slice(0, 4));
  const july4 = ymd(year, 7, 4);
  if (date === ymd(year, 7, 3) && weekday(july4) !== 0 && weekday(july4) !== 6) return true;
  if (date === shiftDate(nthWeekday(year, 11, 4, 4), 1)) return true;
  return date === ymd(year, 12, 24);
}

export function sessionOn(date: EtDate): Session | undefined {
  if (!isTradingDay(date)) return undefined;
  const halfDay = isHalfDay(date);
  const closeMinutes = halfDay ? HALF_DAY_CLOSE_MINUTES : CLOSE_MINUTES;
  return {
    date,
    openMinutes: OPEN_MINUTES,
    closeMinutes,
    openAt: etInstant(date, OPEN_MINUTES),
    closeAt: etInstant(date, closeMinutes),
    halfDay,
  };
}

// Day arithmetic runs for every day of every simulated history: memoised, as calendars are fixed.
const previousCache = new Map<EtDate, EtDate>();
const nextCache = new Map<EtDate, EtDate>();

export function previousTradingDay(date: EtDate): EtDate {
  const cached = previousCache.get(date);
  if (cached) return cached;
  let day = shiftDate(date, -1);
  while (!isTradingDay(day)) day = shiftDate(day, -1);
  if (previousCache.size > 50_000) previousCache.clear();
  previousCache.set(date, day);
  return day;
}

export function nextTradingDay(date: EtDate): EtDate {
  const cached = nextCache.get(date);
  if (cached) return cached;
  let day = shiftDate(date, 1);
  while (!isTradingDay(day)) day = shiftDate(day, 1);
  if (nextCache.size > 50_000) nextCache.clear();
  nextCache.set(date, day);
  return day;
}

/** The trading day on or before `date`. */
export function tradingDayOnOrBefore(date: EtDate): EtDate {
  return isTradingDay(date) ? date : previousTradingDay(date);
}

/**
 * The session a reader means by "now": the one in progress, or else the latest that has
 * opened (Sunday resolves to Friday, 08:00 on a Tuesday to Monday).
 */
export function latestSession(now: number): Session {
  const today = sessionOn(toEt(now).date);
  if (today && now >= today.openAt) return today;
  const previous = sessionOn(previousTradingDay(toEt(now).date));
  if (!previous) throw new Error('unreachable: a previous trading day always has a session');
  return previous;
}

/** Whether `now` is inside that session's open hours. */
export function isLive(session: Session, now: number): boolean {
  return now >= session.openAt && now < session.closeAt;
}

/** The latest `count` sessions that have opened by `now`, newest first. */
export function recentSessions(now: number, count: number): Session[] {
  const result: Session[] = [latestSession(now)];
  while (result.length < count) {
    const last = result[result.length - 1];
    if (!last) break;
    const previous = sessionOn(previousTradingDay(last.date));
    if (!previous) break;
    result.push(previous);
  }
  return result;
}

/** Trading days from `from` to `to` inclusive, newest first. */
export function tradingDaysBetween(from: EtDate, to: EtDate, max = Number.POSITIVE_INFINITY): EtDate[] {
  const result: EtDate[] = [];
  for (let day = tradingDayOnOrBefore(to); day >= from && result.length < max; day = previousTradingDay(day)) result.push(day);
  return result;
}

/** The `count` trading days ending at `to` inclusive, newest first. */
export function tradingDaysBack(to: EtDate, count: number): EtDate[] {
  const result: EtDate[] = [];
  for (let day = tradingDayOnOrBefore(to); result.length < count; day = previousTradingDay(day)) result.push(day);
  return result;
}

/** The last trading day of the week: the standard weekly option expiry (Thursday when Friday is a holiday). */
export function weeklyExpiry(date: EtDate): EtDate {
  let expiry = tradingDayOnOrBefore(date) < date ? nextTradingDay(date) : date;
  for (let next = nextTradingDay(expiry); weekday(next) > weekday(expiry) && weekday(next) <= 5; next = nextTradingDay(next)) expiry = next;
  return expiry;
}
