/**
 * The simulated market behind every dataset: one daily close, one intraday path, one
 * volume and one implied volatility per (seed, symbol, day), so two tools asked the same
 * fact give the same number.
 *
 * Daily returns come from a factor model (market, sector, style, idiosyncratic), so the
 * correlations measured on them are those of a real covariance; prices mean-revert slowly
 * around the reference level so a symbol stays where a trader expects it.
 */
import {
  isTradingDay,
  nextTradingDay,
  previousTradingDay,
  sessionOn,
  tradingDayOnOrBefore,
  type EtDate,
  type Session,
} from '../catalog/market-calendar.js';
import { gaussian, seededRandom } from './random.js';
import { marketFamily, referenceSymbol, SECTORS, type ReferenceSymbol, type Sector, type Style } from './reference.js';

/** Where every simulated history starts; earlier dates read the first close. */
export const HISTORY_START: EtDate = '2022-01-03';
const TRADING_DAYS_PER_YEAR = 252;
/** Daily pull of the log price back to its reference level. */
const MEAN_REVERSION = 0.015;
/** Largest log distance from the reference price (soft, through tanh). */
const PRICE_BAND = 0.8;
/** Realised volatility sits below implied (the variance risk premium). */
const REALISED_TO_IMPLIED = 0.88;

type Factor = 'market' | Sector | Style;
const FACTOR_VOL: Record<Factor, number> = {
  market: 0.15,
  ...(Object.fromEntries(SECTORS.map((s) => [s, 0.1])) as Record<Sector, number>),
  rates: 0.12,
  gold: 0.15,
  crypto: 0.5,
  meme: 0.45,
  growth: 0.1,
  small: 0.14,
};
const STYLE_LOADING: Record<Style, number> = { rates: 1, gold: 1, crypto: 1.2, meme: 1.2, growth: 0.8, small: 1 };

interface Exposure {
  readonly loadings: readonly (readonly [Factor, number])[];
  /** Idiosyncratic annual volatility. */
  readonly idio: number;
}

const exposures = new Map<string, Exposure>();

/** A symbol's factor loadings, and the idiosyncratic volatility that tops it up to its own. */
export function exposureOf(symbol: ReferenceSymbol): Exposure {
  const cached = exposures.get(symbol.ticker);
  if (cached) return cached;
  const loadings: [Factor, number][] = [['market', symbol.beta]];
  if (symbol.sector) loadings.push([symbol.sector, symbol.kind === 'stock' ? 0.7 : 0.9]);
  if (symbol.style) loadings.push([symbol.style, STYLE_LOADING[symbol.style]]);
  const total = symbol.iv * REALISED_TO_IMPLIED;
  const systematic = loadings.reduce((sum, [factor, loading]) => sum + (loading * FACTOR_VOL[factor]) ** 2, 0);
  const floor = symbol.kind === 'stock' ? 0.35 * total : 0.06 * total;
  const exposure = { loadings, idio: Math.sqrt(Math.max(total ** 2 - systematic, floor ** 2)) };
  exposures.set(symbol.ticker, exposure);
  return exposure;
}

/** Annual volatility the factor model gives a symbol. */
export function modelVolatility(symbol: ReferenceSymbol): number {
  const exposure = exposureOf(symbol);
  return Math.sqrt(exposure.loadings.reduce((sum, [f, l]) => sum + (l * FACTOR_VOL[f]) ** 2, 0) + exposure.idio ** 2);
}

const factorDraws = new Map<string, Map<Factor, number>>();

/** The day's draw of one common factor, shared by every symbol loading on it. */
function factorShock(seed: number, factor: Factor, date: EtDate): number {
  const key = `${seed}|${date}`;
  let day = factorDraws.get(key);
  if (!day) {
    day = new Map();
    if (factorDraws.size > 20_000) factorDraws.clear();
    factorDraws.set(key, day);
  }
  let draw = day.get(factor);
  if (draw === undefined) {
    draw = gaussian(seededRandom(seed, 'factor', factor, date));
    day.set(factor, draw);
  }
  return draw;
}

/** Whose returns a symbol has: an ETF that tracks an index returns what the index returns (marketFamily). */
function trackedBy(symbol: ReferenceSymbol): ReferenceSymbol {
  return referenceSymbol(marketFamily(symbol.ticker)) ?? symbol;
}

/** The day's log return of a symbol before mean reversion, and its implied-volatility shock. */
function dailyShock(seed: number, symbol: ReferenceSymbol, date: EtDate): { ret: number; ivShock: number } {
  const source = trackedBy(symbol);
  const exposure = exposureOf(source);
  const random = seededRandom(seed, 'daily', source.ticker, date);
  let ret = exposure.idio * gaussian(random);
  for (const [factor, loading] of exposure.loadings) ret += loading * FACTOR_VOL[factor] * factorShock(seed, factor, date);
  return { ret: ret / Math.sqrt(TRADING_DAYS_PER_YEAR), ivShock: gaussian(random) };
}

interface History {
  readonly dates: EtDate[];
  readonly index: Map<EtDate, number>;
  readonly closes: number[];
  readonly ivs: number[];
  logDeviation: number;
  ivDeviation: number;
}

const histories = new Map<string, History>();

function historyOf(seed: number, symbol: ReferenceSymbol, through: EtDate): History {
  const key = `${seed}|${symbol.ticker}`;
  let history = histories.get(key);
  if (!history) {
    history = { dates: [], index: new Map(), closes: [], ivs: [], logDeviation: 0, ivDeviation: 0 };
    if (histories.size > 400) histories.clear();
    histories.set(key, history);
  }
  const sigma = modelVolatility(trackedBy(symbol)) / Math.sqrt(TRADING_DAYS_PER_YEAR);
  let last = history.dates[history.dates.length - 1];
  while (last === undefined || last < through) {
    const date: EtDate = last === undefined ? tradingDayOnOrBefore(HISTORY_START) : nextTradingDay(last);
    const { ret, ivShock } = dailyShock(seed, symbol, date);
    history.logDeviation = (1 - MEAN_REVERSION) * history.logDeviation + ret;
    // Implied volatility rises when the price falls (leverage effect) and mean-reverts.
    history.ivDeviation = 0.9 * history.ivDeviation + 0.04 * ivShock - 0.03 * (ret / sigma);
    history.index.set(date, history.dates.length);
    history.dates.push(date);
    // A soft bound (x0.45 to x2.2) keeps a symbol recognisable however long the history runs.
    history.closes.push(symbol.price * Math.exp(PRICE_BAND * Math.tanh(history.logDeviation / PRICE_BAND)));
    history.ivs.push(symbol.iv * Math.exp(history.ivDeviation));
    last = date;
  }
  return history;
}

function positionOn(seed: number, symbol: ReferenceSymbol, date: EtDate): { history: History; at: number } {
  const day = tradingDayOnOrBefore(date < HISTORY_START ? HISTORY_START : date);
  const history = historyOf(seed, symbol, day);
  return { history, at: history.index.get(day) ?? 0 };
}

/** The official close of a trading day (or of the last trading day before `date`). */
export function closeOn(seed: number, symbol: ReferenceSymbol, date: EtDate): number {
  const { history, at } = positionOn(seed, symbol, date);
  return history.closes[at] ?? symbol.price;
}

export function previousClose(seed: number, symbol: ReferenceSymbol, date: EtDate): number {
  return closeOn(seed, symbol, previousTradingDay(date));
}

/** 30-day at-the-money implied volatility at the close of a trading day. */
export function iv30On(seed: number, symbol: ReferenceSymbol, date: EtDate): number {
  const { history, at } = positionOn(seed, symbol, date);
  return history.ivs[at] ?? symbol.iv;
}

/** The `count` closes ending at `date`, oldest first. */
export function closesThrough(seed: number, symbol: ReferenceSymbol, date: EtDate, count: number): number[] {
  const { history, at } = positionOn(seed, symbol, date);
  if (at + 1 < count) {
    const first = history.closes[0] ?? symbol.price;
    return [...Array.from({ length: count - at - 1 }, () => first), ...history.closes.slice(0, at + 1)];
  }
  return history.closes.slice(at + 1 - count, at + 1);
}

/** Daily log returns over `days` sessions ending at `date`, oldest first. */
export function logReturns(seed: number, symbol: ReferenceSymbol, date: EtDate, days: number): number[] {
  const closes = closesThrough(seed, symbol, date, days + 1);
  return closes.slice(1).map((close, i) => Math.log(close / (closes[i] ?? close)));
}

/** Realised volatility (annualised) over `days` sessions ending at `date`. */
export function realisedVolatility(seed: number, symbol: ReferenceSymbol, date: EtDate, days: number): number {
  const returns = logReturns(seed, symbol, date, days);
  const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
  const variance = returns.reduce((sum, r) => sum + (r - mean) ** 2, 0) / Math.max(1, returns.length - 1);
  return Math.sqrt(variance * TRADING_DAYS_PER_YEAR);
}

/** Shares traded in a session: around the average, more on big moves, about half on a half day. */
export function volumeOn(seed: number, symbol: ReferenceSymbol, date: EtDate): number {
  if (symbol.kind === 'index' || !isTradingDay(date)) return 0;
  const random = seededRandom(seed, 'volume', symbol.ticker, date);
  const closes = closesThrough(seed, symbol, date, 2);
  const move = Math.abs(Math.log((closes[1] ?? 1) / (closes[0] ?? 1)));
  const sigma = modelVolatility(trackedBy(symbol)) / Math.sqrt(TRADING_DAYS_PER_YEAR);
  const surprise = 1 + 0.35 * Math.max(0, move / sigma - 1);
  const half = sessionOn(date)?.halfDay ? 0.55 : 1;
  return Math.round(symbol.advM * 1e6 * Math.exp(0.25 * gaussian(random) - 0.03) * surprise * half);
}

const PATH_MINUTES_CACHE = new Map<string, Float64Array>();

/**
 * The session's 1-minute price path from the open to the official close: a Brownian
 * bridge, so every intraday print and snapshot agrees with the daily close.
 */
function intradayPath(seed: number, symbol: ReferenceSymbol, session: Session): Float64Array {
  const key = `${seed}|${symbol.ticker}|${session.date}`;
  const cached = PATH_MINUTES_CACHE.get(key);
  if (cached) return cached;
  const minutes = session.closeMinutes - session.openMinutes;
  // An ETF walks its index's path, bridged to its own open and close (which follow the index's).
  const random = seededRandom(seed, 'intraday', marketFamily(symbol.ticker), session.date);
  const sigmaMinute = modelVolatility(trackedBy(symbol)) / Math.sqrt(TRADING_DAYS_PER_YEAR * 390);
  const prev = previousClose(seed, symbol, session.date);
  const close = closeOn(seed, symbol, session.date);
  const open = Math.log(prev) + 0.5 * Math.log(close / prev) * random() + 0.3 * sigmaMinute * Math.sqrt(390) * gaussian(random);
  const walk = new Float64Array(minutes + 1);
  for (let i = 1; i <= minutes; i += 1) walk[i] = (walk[i - 1] ?? 0) + sigmaMinute * gaussian(random);
  const end = walk[minutes] ?? 0;
  const path = new Float64Array(minutes + 1);
  for (let i = 0; i <= minutes; i += 1) {
    const t = i / minutes;
    path[i] = Math.exp(open + (walk[i] ?? 0) - t * end + t * (Math.log(close) - open));
  }
  if (PATH_MINUTES_CACHE.size > 2000) PATH_MINUTES_CACHE.clear();
  PATH_MINUTES_CACHE.set(key, path);
  return path;
}

/** The price at an instant: on the session path inside a session, the last close outside. */
export function priceAt(seed: number, symbol: ReferenceSymbol, instant: number, session: Session): number {
  if (instant >= session.closeAt) return closeOn(seed, symbol, session.date);
  if (instant < session.openAt) return previousClose(seed, symbol, session.date);
  const path = intradayPath(seed, symbol, session);
  const minute = (instant - session.openAt) / 60_000;
  const lower = Math.floor(minute);
  const a = path[lower] ?? path[path.length - 1] ?? symbol.price;
  const b = path[lower + 1] ?? a;
  return a + (b - a) * (minute - lower);
}

/** Sample correlation of daily log returns: a Gram matrix, so positive semi-definite by construction. */
export function returnCorrelation(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  const mean = (xs: readonly number[]): number => xs.slice(0, n).reduce((s, x) => s + x, 0) / n;
  const ma = mean(a);
  const mb = mean(b);
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i += 1) {
    const da = (a[i] ?? 0) - ma;
    const db = (b[i] ?? 0) - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  return saa === 0 || sbb === 0 ? 0 : sab / Math.sqrt(saa * sbb);
}
