/**
 * From the dealer GEX tool's structuredContent to what the view draws. The payload's
 * field names live here and nowhere else, read defensively (a summary nested or flat,
 * data as a list or one object; `view: "levels"` as a table of columns and rows per
 * session), so a change of shape is a change to this file only.
 */
import { sessionOn } from '../../src/catalog/market-calendar.js';
import { isRecord, num, str } from '../shared/format.js';

export interface StrikeBar {
  strike: number;
  netGex: number;
  nodeType: string;
}

/** The levels of one snapshot: what the timeline plots and the legend labels. */
export interface Levels {
  at: string;
  session: string;
  spot: number;
  flip: number | undefined;
  king: number | undefined;
  callWall: number | undefined;
  putWall: number | undefined;
  totalGex: number | undefined;
}

export interface Snapshot extends Levels {
  ticker: string | undefined;
  state: string | undefined;
  /** Sorted by strike. */
  strikes: StrikeBar[];
}

export interface Page<T> {
  rows: T[];
  nextCursor: string | null;
}

function rowsOf(structured: unknown): unknown[] {
  const data = isRecord(structured) ? structured['data'] : undefined;
  if (Array.isArray(data)) return data;
  return data === undefined ? [] : [data];
}

function cursorOf(structured: unknown): string | null {
  const meta = isRecord(structured) ? structured['meta'] : undefined;
  return (isRecord(meta) ? str(meta['next_cursor']) : undefined) ?? null;
}

/** A field of the summary, or of the row itself when the summary is flattened (levels rows). */
function level(row: Record<string, unknown>, ...names: string[]): number | undefined {
  const summary = isRecord(row['summary']) ? row['summary'] : {};
  for (const name of names) {
    const value = num(summary[name]) ?? num(row[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

export function levelsOf(row: unknown): Levels | undefined {
  if (!isRecord(row)) return undefined;
  const at = str(row['snapshot_at']) ?? str(row['at']) ?? str(row['time']);
  const spot = num(row['spot_usd']) ?? num(row['spot']);
  if (at === undefined || spot === undefined) return undefined;
  return {
    at,
    session: str(row['session_date_et']) ?? str(row['session_date']) ?? at.slice(0, 10),
    spot,
    flip: level(row, 'gamma_flip_usd', 'gamma_flip'),
    king: level(row, 'king_strike_usd', 'king_strike'),
    callWall: level(row, 'call_wall_strike_usd', 'call_wall_usd', 'call_wall'),
    putWall: level(row, 'put_wall_strike_usd', 'put_wall_usd', 'put_wall'),
    totalGex: level(row, 'total_gex_usd', 'total_gex'),
  };
}

export function snapshotOf(row: unknown): Snapshot | undefined {
  const levels = levelsOf(row);
  if (!levels || !isRecord(row) || !Array.isArray(row['strikes'])) return undefined;
  const strikes: StrikeBar[] = [];
  for (const s of row['strikes'] as unknown[]) {
    if (!isRecord(s)) continue;
    const strike = num(s['strike_usd']) ?? num(s['strike']);
    const netGex = num(s['net_gex_usd']) ?? num(s['net_gex']);
    if (strike !== undefined && netGex !== undefined) strikes.push({ strike, netGex, nodeType: str(s['node_type']) ?? '' });
  }
  strikes.sort((a, b) => a.strike - b.strike);
  return { ...levels, ticker: str(row['ticker']), state: str(row['state']), strikes };
}

/** Snapshots with strikes in a result, newest first as the tool gives them. */
export function snapshotPage(structured: unknown): Page<Snapshot> {
  return { rows: rowsOf(structured).flatMap((r) => snapshotOf(r) ?? []), nextCursor: cursorOf(structured) };
}

const ET_PARTS = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/**
 * An ET session date and wall time ("2026-11-20", "10:35") as the instant the tool writes
 * in snapshot_at ("2026-11-20T10:35:00-05:00"): the offset is whichever of EST and EDT
 * New York keeps on that day, so the same snapshot has the same key in either view.
 */
export function etInstant(date: string, time: string): string {
  for (const offset of ['-05:00', '-04:00']) {
    const iso = `${date}T${time}:00${offset}`;
    const parts = Object.fromEntries(ET_PARTS.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
    if (`${parts['year']}-${parts['month']}-${parts['day']}` === date && `${parts['hour']}:${parts['minute']}` === time) return iso;
  }
  return `${date}T${time}:00-05:00`;
}

/**
 * The compact `view: "levels"` answer: `{ columns, sessions: [{ session_date_et, rows }] }`,
 * one row per snapshot (time_et first, total GEX in millions), newest first.
 */
function levelsTable(data: Record<string, unknown>): Levels[] {
  const columns = Array.isArray(data['columns']) ? (data['columns'] as unknown[]).map((c) => str(c) ?? '') : [];
  const sessions = Array.isArray(data['sessions']) ? (data['sessions'] as unknown[]) : [];
  const at = (name: string): number => columns.indexOf(name);
  const out: Levels[] = [];
  for (const group of sessions) {
    if (!isRecord(group) || !Array.isArray(group['rows'])) continue;
    const session = str(group['session_date_et']) ?? str(group['session_date']);
    if (session === undefined) continue;
    for (const row of group['rows'] as unknown[]) {
      if (!Array.isArray(row)) continue;
      const cell = (name: string): number | undefined => num(row[at(name)]);
      const time = str(row[at('time_et')]);
      const spot = cell('spot_usd');
      if (time === undefined || spot === undefined) continue;
      const millions = cell('total_gex_usd_m');
      out.push({
        at: etInstant(session, time),
        session,
        spot,
        flip: cell('gamma_flip_usd'),
        king: cell('king_strike_usd'),
        callWall: cell('call_wall_strike_usd'),
        putWall: cell('put_wall_strike_usd'),
        totalGex: millions === undefined ? cell('total_gex_usd') : millions * 1e6,
      });
    }
  }
  return out;
}

/** Level rows of a result: the levels table, or the levels of full snapshots. */
export function levelsPage(structured: unknown): Page<Levels> {
  const data = isRecord(structured) ? structured['data'] : undefined;
  const rows = isRecord(data) && Array.isArray(data['sessions']) ? levelsTable(data) : rowsOf(structured).flatMap((r) => levelsOf(r) ?? []);
  return { rows, nextCursor: cursorOf(structured) };
}

/**
 * A session's open and close in minutes after ET midnight, by the exchange calendar the
 * server keeps: 09:30 to 16:00, or to 13:00 on a half day (a half day's timeline ran on to
 * 16:00, three empty hours after the close).
 */
export function sessionMinutes(date: string): [number, number] {
  const session = sessionOn(date);
  return session ? [session.openMinutes, session.closeMinutes] : [9 * 60 + 30, 16 * 60];
}

/** The whole hours between a session's open and close, for the time axis. */
export function hourTicks([open, close]: readonly [number, number]): number[] {
  const hours: number[] = [];
  for (let hour = Math.ceil(open / 60); hour * 60 <= close; hour += 1) hours.push(hour);
  return hours;
}
