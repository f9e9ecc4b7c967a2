/**
 * Volatility datasets. Each reads the same 30-day implied volatility per (symbol, day) from
 * the market model, so the leaderboard, the skew series and the anomaly score agree.
 */
import { tradingDaysBack } from '../../catalog/market-calendar.js';
import { iv30On, realisedVolatility } from '../market.js';
import { gaussian, round, seededRandom } from '../random.js';
import { REFERENCE, type ReferenceSymbol } from '../reference.js';
import { limitOf, requireSymbol, type Generator, type Row } from './context.js';
import { closeInstant, lastClosedDate, requestedDays } from './days.js';

export const characterTop: Generator = (ctx) => {
  const date = lastClosedDate(ctx);
  const rows: Row[] = REFERENCE.filter((s) => s.kind !== 'index')
    .map((symbol) => {
      const iv30 = iv30On(ctx.seed, symbol, date);
      const rv30 = realisedVolatility(ctx.seed, symbol, date, 30);
      return {
        ticker: symbol.ticker,
        session_date_et: date,
        iv30: round(iv30, 4),
        rv30: round(rv30, 4),
        iv_rv_spread: round(iv30 - rv30, 4),
        // Elevated front-month volatility inverts the term structure; calm markets slope up.
        term_slope: round((symbol.iv - iv30) * 0.5, 4),
      };
    })
    .sort((a, b) => b.iv_rv_spread - a.iv_rv_spread || a.ticker.localeCompare(b.ticker));
  return { data: rows.slice(0, limitOf(ctx, 25)), asOf: closeInstant(date, ctx) };
};

/** Typical 25-delta risk reversal as a fraction of ATM vol: puts richer for indices, calls for meme names. */
function skewLevel(symbol: ReferenceSymbol): number {
  if (symbol.style === 'meme' || symbol.style === 'crypto') return 0.03;
  if (symbol.ticker === 'VIX') return 0.25;
  return symbol.kind === 'stock' ? -0.12 : -0.3;
}

/** Day-to-day persistence of the skew's deviation from its level: a half-life of about ten sessions. */
const SKEW_PERSISTENCE = 0.93;
/** Shocks older than this many sessions weigh under 2 % and are left out. */
const SKEW_MEMORY = 60;

/**
 * The skew's deviation on a day, in units of its long-run spread: an AR(1) of daily shocks,
 * summed from the shocks themselves so any range asked gives the same value for a day.
 */
function skewDeviation(seed: number, symbol: ReferenceSymbol, date: string): number {
  let deviation = 0;
  let weight = 1;
  for (const day of tradingDaysBack(date, SKEW_MEMORY)) {
    deviation += weight * gaussian(seededRandom(seed, 'rr25', symbol.ticker, day));
    weight *= SKEW_PERSISTENCE;
  }
  return deviation * Math.sqrt(1 - SKEW_PERSISTENCE ** 2);
}

export const riskReversalSkew: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  const days = requestedDays(ctx, 90);
  const rows = days.map((date) => {
    const iv30 = iv30On(ctx.seed, symbol, date);
    return { date, atm_iv30: round(iv30, 4), rr25: round(iv30 * (skewLevel(symbol) + 0.03 * skewDeviation(ctx.seed, symbol, date)), 4) };
  });
  return { data: rows, asOf: closeInstant(days[0] ?? ctx.session.date, ctx) };
};

export const volatilityAnomaly: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  const date = lastClosedDate(ctx);
  const history = tradingDaysBack(date, 252).map((day) => iv30On(ctx.seed, symbol, day));
  const iv30 = history[0] ?? symbol.iv;
  const logs = history.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, logs.length - 1)) || 1;
  const z = (Math.log(iv30) - mean) / sd;
  return {
    data: {
      ticker: symbol.ticker,
      session_date_et: date,
      iv30: round(iv30, 4),
      iv_percentile_1y: round((history.filter((iv) => iv < iv30).length / history.length) * 100, 1),
      iv_zscore_1y: round(z, 2),
      anomaly_score: round(Math.min(100, Math.abs(z) * 33), 1),
    },
    asOf: closeInstant(date, ctx),
  };
};
