/**
 * Cross-asset datasets: correlations measured on the factor model's daily returns (a sample
 * correlation matrix, so positive semi-definite), and FX near real levels, quoted through
 * the FX week (Sunday 17:00 to Friday 17:00 ET).
 */
import { etInstant, etIso, shiftDate, toEt, weekday, type EtDate } from '../../catalog/market-calendar.js';
import { logReturns, returnCorrelation } from '../market.js';
import { gaussian, round, seededRandom } from '../random.js';
import { referenceSymbol, type ReferenceSymbol } from '../reference.js';
import { DatasetRefusal, stringParam, type Generator, type Row } from './context.js';
import { closeInstant, lastClosedDate } from './days.js';

export const correlations: Generator = (ctx) => {
  const tickers = (stringParam(ctx, 'tickers') ?? '').split(',');
  const lookback = typeof ctx.query['lookback_days'] === 'number' ? ctx.query['lookback_days'] : 60;
  const symbols: ReferenceSymbol[] = tickers.map((ticker) => {
    const symbol = referenceSymbol(ticker);
    if (!symbol)
      throw new DatasetRefusal('NOT_FOUND', `${ticker} is not covered by the service.`, 'Drop it from tickers or check the symbol.');
    return symbol;
  });
  const date = lastClosedDate(ctx);
  const returns = symbols.map((symbol) => logReturns(ctx.seed, symbol, date, lookback));
  const rows: Row[] = [];
  symbols.forEach((a, i) =>
    symbols.slice(i + 1).forEach((b, k) => {
      const j = i + 1 + k;
      rows.push({
        a: a.ticker,
        b: b.ticker,
        correlation: a.ticker === b.ticker ? 1 : round(returnCorrelation(returns[i] ?? [], returns[j] ?? []), 4),
        lookback_days: lookback,
        as_of_date: date,
      });
    }),
  );
  return { data: rows, asOf: closeInstant(date, ctx) };
};

/** US dollars per unit, late-2025 levels, and each currency's annual volatility against the dollar. */
const CURRENCIES: Record<string, readonly [number, number]> = {
  USD: [1, 0],
  EUR: [1.16, 0.07],
  GBP: [1.31, 0.08],
  JPY: [1 / 155, 0.1],
  CHF: [1 / 0.8, 0.07],
  CAD: [1 / 1.4, 0.06],
  AUD: [0.655, 0.1],
  NZD: [0.57, 0.1],
  CNY: [1 / 7.1, 0.03],
  CNH: [1 / 7.11, 0.04],
  HKD: [1 / 7.78, 0.003],
  SGD: [1 / 1.3, 0.05],
  SEK: [1 / 9.5, 0.1],
  NOK: [1 / 10.1, 0.11],
  MXN: [1 / 18.4, 0.13],
  BRL: [1 / 5.35, 0.15],
  INR: [1 / 88.5, 0.04],
  KRW: [1 / 1460, 0.08],
  ZAR: [1 / 17.3, 0.14],
};

/** The last instant FX traded by `now`: the FX week closes Friday 17:00 ET and reopens Sunday 17:00 ET. */
export function fxQuoteInstant(now: number): number {
  const et = toEt(now);
  const day = weekday(et.date);
  const fridayClose = (date: EtDate): number => etInstant(date, 17 * 60);
  if (day === 6) return fridayClose(shiftDate(et.date, -1));
  if (day === 0 && et.minutes < 17 * 60) return fridayClose(shiftDate(et.date, -2));
  if (day === 5 && et.minutes >= 17 * 60) return fridayClose(et.date);
  return now;
}

/** USD value of a currency at an instant: a slow cycle around its level plus daily noise, interpolated through the day. */
function usdValue(seed: number, code: string, instant: number): number {
  const [level, vol] = CURRENCIES[code] ?? [1, 0];
  if (vol === 0) return level;
  const phase = seededRandom(seed, 'fx-phase', code)() * 2 * Math.PI;
  const deviation = (day: number): number =>
    0.5 * vol * Math.sin(day / 45 + phase) + (0.3 * vol * gaussian(seededRandom(seed, 'fx', code, day))) / Math.sqrt(252);
  const day = Math.floor(instant / 86_400_000);
  const t = (instant % 86_400_000) / 86_400_000;
  return level * Math.exp(deviation(day) + (deviation(day + 1) - deviation(day)) * t);
}

export const forexRate: Generator = (ctx) => {
  const pair = stringParam(ctx, 'pair') ?? '';
  const base = pair.slice(0, 3);
  const quote = pair.slice(3);
  for (const code of [base, quote])
    if (!(code in CURRENCIES))
      throw new DatasetRefusal('NOT_FOUND', `${code} is not a covered currency.`, `Covered: ${Object.keys(CURRENCIES).join(', ')}.`);
  if (base === quote)
    throw new DatasetRefusal('VALIDATION_ERROR', 'Base and quote are the same currency.', 'Use two different codes, e.g. EURUSD.');
  // Quotes update on the minute.
  const at = Math.floor(fxQuoteInstant(ctx.now) / 60_000) * 60_000;
  const rate = usdValue(ctx.seed, base, at) / usdValue(ctx.seed, quote, at);
  const digits = rate > 20 ? 3 : 5;
  return {
    data: { pair, base, quote, rate: round(rate, digits), as_of: etIso(at), market_open: at === Math.floor(ctx.now / 60_000) * 60_000 },
    asOf: at,
  };
};
