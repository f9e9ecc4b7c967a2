/**
 * From the short-interest tools' structuredContent to what the view draws. Field names
 * live here and nowhere else, each with the alternatives a payload may use, so a change
 * of shape in the simulator or upstream is a change to this file only.
 */
import { isRecord, num, str } from '../shared/format.js';

export interface ScreenerRow {
  ticker: string;
  /** Short interest as a percent of float (0-100). */
  shortFloatPct: number;
  daysToCover: number | undefined;
  shortShares: number | undefined;
}

export interface RatioPoint {
  date: string;
  /** Short volume over total volume (0-1). */
  ratio: number;
  shortVolume: number | undefined;
  totalVolume: number | undefined;
}

export interface VenueDay {
  date: string;
  byVenue: Map<string, number>;
}

export type ShortPayload =
  | { kind: 'screener'; rows: ScreenerRow[] }
  | { kind: 'ratio'; ticker: string | undefined; points: RatioPoint[] }
  | { kind: 'venues'; ticker: string | undefined; days: VenueDay[] }
  | { kind: 'empty' };

function rowsOf(structured: unknown): Record<string, unknown>[] {
  const data = isRecord(structured) ? structured['data'] : undefined;
  const list = Array.isArray(data) ? data : isRecord(data) && Array.isArray(data['rows']) ? (data['rows'] as unknown[]) : [];
  return list.filter(isRecord);
}

function first(row: Record<string, unknown>, names: string[]): number | undefined {
  for (const name of names) {
    const value = num(row[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

function screenerRow(row: Record<string, unknown>): ScreenerRow | undefined {
  const ticker = str(row['ticker']) ?? str(row['symbol']);
  let pct = first(row, ['short_float_pct', 'short_interest_pct_float', 'short_percent_of_float', 'short_pct_float']);
  // A fraction (0.23) rather than a percent (23) where a payload says "ratio".
  const fraction = first(row, ['short_float_ratio', 'short_interest_ratio_float']);
  if (pct === undefined && fraction !== undefined) pct = fraction * 100;
  if (ticker === undefined || pct === undefined) return undefined;
  return {
    ticker,
    shortFloatPct: pct,
    daysToCover: first(row, ['days_to_cover', 'days_to_cover_ratio']),
    shortShares: first(row, ['short_interest_shares', 'short_interest', 'shares_short']),
  };
}

function ratioPoint(row: Record<string, unknown>): RatioPoint | undefined {
  const date = str(row['date']) ?? str(row['trade_date']) ?? str(row['as_of']);
  const shortVolume = first(row, ['short_volume', 'short_volume_shares']);
  const totalVolume = first(row, ['total_volume', 'volume', 'total_volume_shares']);
  let ratio = first(row, ['short_ratio', 'short_volume_ratio', 'ratio']);
  if (ratio === undefined && shortVolume !== undefined && totalVolume) ratio = shortVolume / totalVolume;
  // A percent (48.2) rather than a fraction (0.482).
  if (ratio !== undefined && ratio > 1) ratio /= 100;
  if (date === undefined || ratio === undefined) return undefined;
  return { date, ratio, shortVolume, totalVolume };
}

/** Which picture a result calls for, decided by its rows' fields (the tool name only breaks ties). */
export function shortPayload(structured: unknown, toolName: string | undefined, ticker: string | undefined): ShortPayload {
  const rows = rowsOf(structured);
  if (rows.length === 0) return { kind: 'empty' };
  const sample = rows[0] ?? {};
  const rowTicker = str(sample['ticker']) ?? ticker;
  if ('venue' in sample || 'exchange' in sample || toolName === 'shorts_volumes_by_exchange') {
    const days = new Map<string, VenueDay>();
    for (const row of rows) {
      const date = str(row['date']);
      const venue = str(row['venue']) ?? str(row['exchange']);
      const volume = first(row, ['short_volume', 'short_volume_shares']);
      if (date === undefined || venue === undefined || volume === undefined) continue;
      const day = days.get(date) ?? { date, byVenue: new Map<string, number>() };
      day.byVenue.set(venue, (day.byVenue.get(venue) ?? 0) + volume);
      days.set(date, day);
    }
    return { kind: 'venues', ticker: rowTicker, days: [...days.values()].sort((a, b) => (a.date < b.date ? -1 : 1)) };
  }
  const screener = rows.flatMap((r) => screenerRow(r) ?? []);
  if (screener.length > 0 && toolName !== 'shorts_volume_and_ratio') return { kind: 'screener', rows: screener };
  const points = rows.flatMap((r) => ratioPoint(r) ?? []).sort((a, b) => (a.date < b.date ? -1 : 1));
  return points.length > 0 ? { kind: 'ratio', ticker: rowTicker, points } : { kind: 'empty' };
}

export type RankBy = 'shortFloatPct' | 'daysToCover';

/** Highest first; rows without the measure go last, in the order they came. */
export function ranked(rows: ScreenerRow[], by: RankBy): ScreenerRow[] {
  return [...rows].sort((a, b) => (b[by] ?? -Infinity) - (a[by] ?? -Infinity));
}
