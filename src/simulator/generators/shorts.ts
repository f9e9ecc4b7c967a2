/**
 * Short interest and short volume. Short interest is disclosed twice a month (settlement on
 * the 15th and at month end, published about a week later); short volume daily, by venue,
 * and the venues add up to the day's total.
 */
import {
  nextTradingDay,
  previousTradingDay,
  shiftDate,
  tradingDayOnOrBefore,
  tradingDaysBack,
  type EtDate,
} from '../../catalog/market-calendar.js';
import { volumeOn } from '../market.js';
import { gaussian, round, seededRandom } from '../random.js';
import { STOCKS, type ReferenceSymbol } from '../reference.js';
import { limitOf, requireSymbol, type FilterFields, type Generator, type GeneratorContext } from './context.js';
import { closeInstant, requestedDays } from './days.js';

const PUBLICATION_LAG_TRADING_DAYS = 7;

function settlementDates(month: string): EtDate[] {
  const [year, mon] = month.split('-').map(Number);
  const lastDay = new Date(Date.UTC(year ?? 2026, mon ?? 1, 0)).getUTCDate();
  return [tradingDayOnOrBefore(`${month}-15`), tradingDayOnOrBefore(`${month}-${String(lastDay).padStart(2, '0')}`)];
}

function publishedOn(settlement: EtDate): EtDate {
  let published = settlement;
  for (let i = 0; i < PUBLICATION_LAG_TRADING_DAYS; i += 1) published = nextTradingDay(published);
  return published;
}

/** The latest settlement date whose figures are published by `date`. */
export function latestSettlement(date: EtDate): EtDate {
  let month = date.slice(0, 7);
  for (let i = 0; i < 4; i += 1) {
    const candidates = settlementDates(month)
      .filter((s) => publishedOn(s) <= date)
      .sort()
      .reverse();
    if (candidates[0]) return candidates[0];
    month = shiftDate(`${month}-01`, -1).slice(0, 7);
  }
  return previousTradingDay(date);
}

/** Average daily volume over the 20 sessions up to a date. */
function averageVolume(seed: number, symbol: ReferenceSymbol, date: EtDate): number {
  const days = tradingDaysBack(date, 20);
  return days.reduce((sum, day) => sum + volumeOn(seed, symbol, day), 0) / days.length;
}

export interface ShortInterest {
  settlement: EtDate;
  shares: number;
  floatShares: number;
  pctOfFloat: number;
  daysToCover: number;
}

/** A company's short interest at a settlement date: its usual level, drifting period to period. */
export function shortInterest(seed: number, symbol: ReferenceSymbol, settlement: EtDate): ShortInterest {
  const random = seededRandom(seed, 'short-interest', symbol.ticker, settlement);
  const floatShares = Math.round(symbol.floatM * 1e6);
  const shares = Math.round(floatShares * (symbol.shortPct / 100) * Math.exp(0.12 * gaussian(random)));
  return {
    settlement,
    shares,
    floatShares,
    pctOfFloat: round((shares / floatShares) * 100, 2),
    daysToCover: round(shares / averageVolume(seed, symbol, settlement), 2),
  };
}

function screenerRow(ctx: GeneratorContext, symbol: ReferenceSymbol, settlement: EtDate) {
  const si = shortInterest(ctx.seed, symbol, settlement);
  return {
    ticker: symbol.ticker,
    name: symbol.name,
    security_type: symbol.kind,
    settlement_date: settlement,
    short_interest_shares: si.shares,
    float_shares: si.floatShares,
    short_float_pct: si.pctOfFloat,
    days_to_cover: si.daysToCover,
  };
}

/** What the `tickers` filter reads (query-filters.ts). */
export const shortScreenerFilterFields = { ticker: 'ticker' } as const satisfies FilterFields<ReturnType<typeof screenerRow>>;

/** Companies only: an ETF's short interest measures creations and hedges, not a bet against it. */
export const shortScreener: Generator = (ctx) => {
  const settlement = latestSettlement(ctx.session.date);
  const min = typeof ctx.query['min_short_float_pct'] === 'number' ? ctx.query['min_short_float_pct'] : 0;
  const rows = STOCKS.map((symbol) => screenerRow(ctx, symbol, settlement))
    .filter((row) => row.short_float_pct >= min)
    .sort((a, b) => b.short_float_pct - a.short_float_pct || a.ticker.localeCompare(b.ticker));
  return { data: rows.slice(0, limitOf(ctx, 50)), asOf: closeInstant(settlement, ctx) };
};

/** The day's short sale ratio: around 45 % of volume, higher for crowded shorts. */
function shortVolumeOn(seed: number, symbol: ReferenceSymbol, date: EtDate): { total: number; short: number } {
  const random = seededRandom(seed, 'short-volume', symbol.ticker, date);
  const total = volumeOn(seed, symbol, date);
  const ratio = Math.min(0.75, Math.max(0.2, 0.42 + symbol.shortPct / 150 + 0.05 * gaussian(random)));
  return { total, short: Math.round(total * ratio) };
}

export const volumeAndRatio: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  const days = requestedDays(ctx, 45);
  const rows = days.map((date) => {
    const { total, short } = shortVolumeOn(ctx.seed, symbol, date);
    return { date, short_volume: short, total_volume: total, short_ratio: round(short / Math.max(1, total), 4) };
  });
  return { data: rows, asOf: closeInstant(days[0] ?? ctx.session.date, ctx) };
};

export const SHORT_VOLUME_VENUES = ['FINRA ADF', 'NASDAQ TRF Carteret', 'NASDAQ TRF Chicago', 'NYSE TRF'] as const;

export const volumesByExchange: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  const days = requestedDays(ctx, 30);
  const rows = days.flatMap((date) => {
    const { short } = shortVolumeOn(ctx.seed, symbol, date);
    const random = seededRandom(ctx.seed, 'short-venues', symbol.ticker, date);
    const weights = [0.04, 0.55, 0.13, 0.28].map((w) => w * Math.exp(0.2 * gaussian(random)));
    const sum = weights.reduce((a, b) => a + b, 0);
    let left = short;
    return SHORT_VOLUME_VENUES.map((venue, i) => {
      // The last venue takes the remainder, so the venues add up to the day's short volume.
      const part = i === SHORT_VOLUME_VENUES.length - 1 ? left : Math.round((short * (weights[i] ?? 0)) / sum);
      left -= part;
      return { date, venue, short_volume: part };
    });
  });
  return { data: rows, asOf: closeInstant(days[0] ?? ctx.session.date, ctx) };
};
