/** Option datasets: flow overview, chain BBO history, open-interest changes, market volume. */
import {
  etIso,
  nextTradingDay,
  previousTradingDay,
  recentSessions,
  sessionOn,
  weeklyExpiry,
  type EtDate,
  type Session,
} from '../../catalog/market-calendar.js';
import { iv30On, priceAt, volumeOn } from '../market.js';
import { optionPrice, osiSymbol, skewedVol, strikeStep } from '../options-math.js';
import { tradingMinutesBetween, tradingYearsBetween } from '../trading-time.js';
import { gaussian, round, seededRandom } from '../random.js';
import { REFERENCE, type ReferenceSymbol } from '../reference.js';
import { limitOf, requireSymbol, stringParam, type FilterFields, type Generator, type Row } from './context.js';
import { closeInstant, requestedDays, requestedSession } from './days.js';

/** The nearest expiry listed on a session: the session itself for daily-expiry names. */
function nearestExpiry(symbol: ReferenceSymbol, date: EtDate): EtDate {
  return symbol.dailyExpiries ? date : weeklyExpiry(date);
}

interface DailyFlow {
  callPremium: number;
  putPremium: number;
  callContracts: number;
  putContracts: number;
}

const INDEX_PREMIUM: Record<string, number> = { SPX: 4e9, NDX: 9e8, RUT: 3e8, VIX: 2.5e8 };

/** One session's option premium for a symbol: a share of its stock dollar volume, put/call by mood. */
export function dailyFlow(seed: number, symbol: ReferenceSymbol, date: EtDate): DailyFlow {
  const random = seededRandom(seed, 'flow', symbol.ticker, date);
  const session = sessionOn(date);
  const price = session ? priceAt(seed, symbol, session.closeAt, session) : symbol.price;
  const base =
    symbol.kind === 'index' ? (INDEX_PREMIUM[symbol.ticker] ?? 2e8) : volumeOn(seed, symbol, date) * price * (0.03 + symbol.iv * 0.1);
  const putShare = (symbol.kind === 'stock' ? 0.4 : 0.55) * Math.exp(0.15 * gaussian(random));
  const total = base * Math.exp(0.2 * gaussian(random));
  const callPremium = Math.round(total * (1 - Math.min(0.8, putShare)));
  const putPremium = Math.round(total - callPremium);
  const premiumPerContract = Math.max(20, price * symbol.iv * 0.6);
  return {
    callPremium,
    putPremium,
    callContracts: Math.round(callPremium / premiumPerContract),
    putContracts: Math.round(putPremium / premiumPerContract),
  };
}

export const flowOverview: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  const session = requestedSession(ctx);
  const window = stringParam(ctx, 'window') ?? '1d';
  const singleLeg = stringParam(ctx, 'single_leg_only') === 'true';
  const sessions = recentSessions(session.closeAt - 1, window === '7d' ? 7 : 1);
  const sums = sessions
    .map((s) => dailyFlow(ctx.seed, symbol, s.date))
    .reduce((a, b) => ({
      callPremium: a.callPremium + b.callPremium,
      putPremium: a.putPremium + b.putPremium,
      callContracts: a.callContracts + b.callContracts,
      putContracts: a.putContracts + b.putContracts,
    }));
  // Single-leg trades are most of the flow; spreads and combos are the rest.
  const share = singleLeg ? 0.72 : 1;
  const spot = priceAt(ctx.seed, symbol, Math.min(ctx.now, session.closeAt), session);
  const step = strikeStep(spot, symbol.dailyExpiries);
  const callsLead = sums.callPremium >= sums.putPremium;
  const strike = (Math.round(spot / step) + (callsLead ? 1 : -1)) * step;
  const expiry = nearestExpiry(symbol, session.date);
  return {
    data: {
      ticker: symbol.ticker,
      session_date_et: session.date,
      window,
      sessions: sessions.length,
      call_premium_usd: Math.round(sums.callPremium * share),
      put_premium_usd: Math.round(sums.putPremium * share),
      call_volume: Math.round(sums.callContracts * share),
      put_volume: Math.round(sums.putContracts * share),
      put_call_ratio: round(sums.putPremium / Math.max(1, sums.callPremium), 3),
      top_contract: osiSymbol(symbol.ticker, expiry, callsLead ? 'C' : 'P', strike),
      single_leg_only: singleLeg,
    },
    asOf: Math.min(ctx.now, session.closeAt),
  };
};

/**
 * A same-day contract's at-the-money volatility against the 30-day level: the day's own
 * variance (event risk, gamma hedging flows) puts it a little above the month's on most days
 * and below it on quiet ones, within the 0.8x to 1.35x a desk sees on index and single-name
 * 0DTE. One draw per name and session, so every quote of the day agrees.
 */
export function sameDayVolFactor(seed: number, symbol: ReferenceSymbol, date: EtDate): number {
  const draw = gaussian(seededRandom(seed, 'same-day-vol', symbol.ticker, date));
  return Math.min(1.35, Math.max(0.8, 1.05 * Math.exp(0.1 * draw)));
}

const INTERVAL_MINUTES: Record<string, number> = { '1m': 1, '5m': 5, '10m': 10, '15m': 15, '30m': 30, '1h': 60 };

function strikeOfContract(contract: string): number {
  return Number(contract.slice(-8)) / 1000;
}

export const chainHistory: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  const session = requestedSession(ctx);
  const expiration = stringParam(ctx, 'expiration') ?? session.date;
  const right = stringParam(ctx, 'right') === 'P' ? 'P' : 'C';
  const interval = INTERVAL_MINUTES[stringParam(ctx, 'interval') ?? '5m'] ?? 5;
  const contract = stringParam(ctx, 'contract');
  const end = Math.min(ctx.now, session.closeAt);
  // A contract that expired before the session has no quotes in it.
  const expiryClose = sessionOn(expiration)?.closeAt ?? Date.parse(`${expiration}T21:00:00Z`);
  if (expiration < session.date) return { data: [], asOf: end };
  const open = priceAt(ctx.seed, symbol, session.openAt, session);
  const step = strikeStep(open, symbol.dailyExpiries);
  const atm = Math.round(open / step) * step;
  const strikes = contract ? [strikeOfContract(contract)] : [atm - step, atm, atm + step].map((k) => round(k, 2));
  // Yesterday's 30-day level; a contract expiring today trades at its own same-day level.
  const atmVol =
    iv30On(ctx.seed, symbol, previousTradingDay(session.date)) *
    (expiration === session.date ? sameDayVolFactor(ctx.seed, symbol, session.date) : 1);
  const rows: Row[] = [];
  for (let at = session.openAt + interval * 60_000; at <= end; at += interval * 60_000) {
    const spot = priceAt(ctx.seed, symbol, at, session);
    for (const strike of strikes) {
      // Priced on the trading time left, as desks quote intraday options (src/simulator/trading-time.ts).
      const mid = optionPrice(right, spot, strike, skewedVol(atmVol, spot, strike), tradingYearsBetween(at, expiryClose));
      const half = Math.max(0.01, mid * 0.015) / 2;
      rows.push({
        timestamp: etIso(at),
        contract: osiSymbol(symbol.ticker, expiration, right, strike),
        strike_usd: strike,
        underlying_usd: round(spot, 2),
        bid_usd: round(Math.max(0, mid - half), 2),
        ask_usd: round(Math.max(0.01, mid + half), 2),
      });
    }
  }
  return { data: rows, asOf: end };
};

/** Every contract whose open interest changed on a session, per underlying, largest moves first. */
interface OiChangeRow {
  contract: string;
  underlying: string;
  expiration: string;
  right: 'C' | 'P';
  strike_usd: number;
  oi_change: number;
  open_interest: number;
  prev_open_interest: number;
}

/**
 * The session's largest open-interest changes of one underlying. New positions open near the
 * money, out to about two moves expected by each contract's expiry (calls above spot, puts
 * below, a few in the money), so no line sits eight standard deviations out; each change is a
 * share of the contracts the name traded that day, so a name's changes scale with its option
 * volume and never exceed it.
 */
function oiChangesFor(seed: number, symbol: ReferenceSymbol, session: Session): OiChangeRow[] {
  const random = seededRandom(seed, 'oi-change', symbol.ticker, session.date);
  const price = priceAt(seed, symbol, session.closeAt, session);
  const step = strikeStep(price, symbol.dailyExpiries);
  const flow = dailyFlow(seed, symbol, session.date);
  const traded = flow.callContracts + flow.putContracts;
  const vol = iv30On(seed, symbol, session.date);
  const expiries = [weeklyExpiry(nextTradingDay(session.date)), weeklyExpiry(nextTradingDay(weeklyExpiry(nextTradingDay(session.date))))];
  const seen = new Set<string>();
  const rows: OiChangeRow[] = [];
  for (let i = 0; i < 12; i += 1) {
    const right = random() < 0.55 ? 'C' : 'P';
    const expiry = expiries[random() < 0.7 ? 0 : 1] ?? session.date;
    // The move expected by expiry, in trading time: strikes are drawn in units of it.
    const expiryClose = sessionOn(expiry)?.closeAt ?? session.closeAt;
    const expectedMove = vol * Math.sqrt(Math.max(1, tradingMinutesBetween(session.closeAt, expiryClose) / 390) / 252);
    const outOfTheMoney = Math.min(2, Math.abs(gaussian(random)) * 0.7) * (random() < 0.85 ? 1 : -0.5);
    const target = price * Math.exp((right === 'C' ? 1 : -1) * outOfTheMoney * expectedMove);
    const strike = round(Math.max(step, Math.round(target / step) * step), 2);
    const contract = osiSymbol(symbol.ticker, expiry, right, strike);
    if (seen.has(contract)) continue;
    seen.add(contract);
    // A large line moves a few tenths of a percent of the day's contracts (SPY: tens of thousands of 35 million).
    const share = Math.min(0.05, 0.004 * Math.exp(0.6 * gaussian(random)));
    const change = Math.round(traded * share * (random() < 0.75 ? 1 : -0.6));
    const openInterest = Math.max(Math.abs(change), Math.round(Math.abs(change) * (1.5 + 4 * random())));
    rows.push({
      contract,
      underlying: symbol.ticker,
      expiration: expiry,
      right,
      strike_usd: strike,
      oi_change: change,
      open_interest: openInterest,
      prev_open_interest: openInterest - change,
    });
  }
  return rows;
}

/** What the `tickers` filter reads (query-filters.ts): the contract's underlying. */
export const oiChangeFilterFields = { ticker: 'underlying' } as const satisfies FilterFields<OiChangeRow>;

export const oiChange: Generator = (ctx) => {
  const session = requestedSession(ctx);
  const all = REFERENCE.flatMap((symbol) => oiChangesFor(ctx.seed, symbol, session))
    .sort((a, b) => Math.abs(b.oi_change) - Math.abs(a.oi_change) || a.contract.localeCompare(b.contract))
    .map((row) => ({ session_date_et: session.date, ...row }));
  return { data: all.slice(0, limitOf(ctx, 50)), asOf: closeInstant(session.date, ctx) };
};

export const totalOptionsVolume: Generator = (ctx) => {
  const days = requestedDays(ctx, 60, limitOf(ctx, 30));
  const rows = days.map((date) => {
    const random = seededRandom(ctx.seed, 'market-volume', date);
    const half = sessionOn(date)?.halfDay ? 0.5 : 1;
    const calls = Math.round(2.6e7 * half * Math.exp(0.12 * gaussian(random)));
    const puts = Math.round(calls * 0.78 * Math.exp(0.1 * gaussian(random)));
    return {
      date,
      call_volume: calls,
      put_volume: puts,
      total_volume: calls + puts,
      put_call_ratio: round(puts / calls, 3),
      premium_usd: Math.round((calls + puts) * 310 * Math.exp(0.1 * gaussian(random))),
    };
  });
  return { data: rows, asOf: closeInstant(days[0] ?? ctx.session.date, ctx) };
};
