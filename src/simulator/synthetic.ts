/**
 * Synthetic payloads for every dataset but the dealer GEX history (./dealer-gex.ts):
 * plausible, compact, and deterministic for a seed, ticker, query and day.
 */
import type { QueryValues } from '../catalog/index.js';
import { recentSessions, round, seededRandom, shiftDate, UNIVERSE, type UniverseEntry } from './market.js';

export interface GeneratorContext {
  readonly seed: number;
  readonly now: number;
  readonly operationId: string;
  readonly entry: UniverseEntry | undefined;
  readonly query: QueryValues;
}

type Row = Record<string, string | number | boolean | null>;
type Generator = (ctx: GeneratorContext, random: () => number) => Row[] | Row;

function rowCount(ctx: GeneratorContext, fallback: number): number {
  const limit = ctx.query['limit'];
  return typeof limit === 'number' ? limit : fallback;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length) % items.length] as T;
}

/** Trading days (weekdays) between `from` and `to`, newest first, capped at `max`. */
function days(ctx: GeneratorContext, max: number): string[] {
  const latest = recentSessions(ctx.now, 1)[0] ?? new Date(ctx.now).toISOString().slice(0, 10);
  const to = typeof ctx.query['to'] === 'string' && ctx.query['to'] < latest ? ctx.query['to'] : latest;
  const from = typeof ctx.query['from'] === 'string' ? ctx.query['from'] : shiftDate(to, -45);
  const result: string[] = [];
  for (let date = to; date >= from && result.length < max; date = shiftDate(date, -1)) {
    const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
    if (weekday !== 0 && weekday !== 6) result.push(date);
  }
  return result;
}

function spotOf(ctx: GeneratorContext): number {
  return ctx.entry?.spot ?? 100;
}

const STOCKS = UNIVERSE.filter((e) => !e.isIndex);
const VENUES = ['FINRA ADF', 'NASDAQ TRF Carteret', 'NASDAQ TRF Chicago', 'NYSE TRF'];
const LIT_VENUES = ['NASDAQ', 'NYSE', 'ARCA', 'BATS', 'IEX', 'EDGX', 'MEMX'];
const MEMBERS = ['Rep. A. Rivera', 'Sen. B. Chen', 'Rep. C. Okafor', 'Sen. D. Lindqvist', 'Rep. E. Haddad'];
const HOLDERS = [
  'Vanguard Group',
  'BlackRock',
  'State Street',
  'Fidelity (FMR)',
  'Geode Capital',
  'Morgan Stanley',
  'Northern Trust',
  'T. Rowe Price',
];

const GENERATORS: Record<string, Generator> = {
  'flow.ticker_overview': (ctx, random) => {
    const spot = spotOf(ctx);
    return {
      ticker: ctx.entry?.ticker ?? '',
      window: ctx.query['window'] ?? '1d',
      call_premium_usd: Math.round(random() * 4e8),
      put_premium_usd: Math.round(random() * 3e8),
      put_call_ratio: round(0.5 + random(), 3),
      top_contract: `${ctx.entry?.ticker ?? 'SPY'}261218C${String(Math.round(spot * 1.05) * 1000).padStart(8, '0')}`,
      single_leg_only: ctx.query['single_leg_only'] === 'true',
    };
  },
  'options.chain_history': (ctx, random) => {
    const spot = spotOf(ctx);
    const bars = { '1m': 390, '5m': 78, '10m': 39, '15m': 26, '30m': 13, '1h': 7 }[String(ctx.query['interval'] ?? '5m')] ?? 78;
    return Array.from({ length: Math.min(bars, 40) }, (_, i) => {
      const mid = round(spot * 0.02 * (1 + (random() - 0.5) * 0.2));
      return {
        bar: i,
        expiration: String(ctx.query['expiration']),
        right: String(ctx.query['right']),
        bid_usd: round(mid * 0.98),
        ask_usd: round(mid * 1.02),
      };
    });
  },
  'stocks.sector_tickers': (ctx) =>
    STOCKS.filter((e) => e.sector === ctx.query['sector']).map((e) => ({ ticker: e.ticker, name: e.name, exchange: e.exchange })),
  'market.total_options_volume': (ctx, random) =>
    days(ctx, rowCount(ctx, 30)).map((date) => ({
      date,
      call_volume: Math.round(2.2e7 + random() * 8e6),
      put_volume: Math.round(1.8e7 + random() * 7e6),
      premium_usd: Math.round(1.1e10 + random() * 4e9),
    })),
  'stocks.ticker_exchanges': (ctx, random) =>
    Array.from({ length: rowCount(ctx, 500) }, (_, i) => {
      const base = STOCKS[i % STOCKS.length] as UniverseEntry;
      const suffix = i < STOCKS.length ? '' : `${String.fromCharCode(65 + (i % 26))}${Math.floor(i / 26)}`;
      return {
        ticker: `${base.ticker.replace('.', '')}${suffix}`,
        exchange: pick(random, LIT_VENUES),
        name: `${base.name}${suffix ? ' (vendor alias)' : ''}`,
        delisted: i >= STOCKS.length && random() < 0.3,
      };
    }),
  'shorts.short_screener': (ctx, random) => {
    const min = typeof ctx.query['min_short_float_pct'] === 'number' ? ctx.query['min_short_float_pct'] : 0;
    return STOCKS.map((e) => ({
      ticker: e.ticker,
      short_interest_shares: Math.round(random() * 9e7),
      short_float_pct: round(random() * 35, 2),
      days_to_cover: round(0.5 + random() * 9, 2),
    }))
      .filter((row) => row.short_float_pct >= min)
      .sort((a, b) => b.short_float_pct - a.short_float_pct)
      .slice(0, rowCount(ctx, 50));
  },
  'congress.recent_trades': (ctx, random) =>
    Array.from({ length: Math.min(rowCount(ctx, 50), 200) }, (_, i) => ({
      member: pick(random, MEMBERS),
      chamber: ctx.query['chamber'] ?? (random() < 0.6 ? 'house' : 'senate'),
      ticker: pick(random, STOCKS).ticker,
      side: random() < 0.55 ? 'buy' : 'sell',
      amount_range_usd: pick(random, ['1,001-15,000', '15,001-50,000', '50,001-100,000', '100,001-250,000']),
      disclosed_on: shiftDate(new Date(ctx.now).toISOString().slice(0, 10), -Math.floor(i / 3)),
    })),
  'stocks.lit_trades_recent': (ctx, random) =>
    Array.from({ length: rowCount(ctx, 100) }, (_, i) => {
      const e = pick(random, STOCKS);
      return {
        ticker: e.ticker,
        price_usd: round(e.spot * (1 + (random() - 0.5) * 0.01)),
        size: Math.round(100 + random() * 5000),
        venue: pick(random, LIT_VENUES),
        executed_at: new Date(ctx.now - i * 137).toISOString(),
      };
    }),
  'volatility.character_top': (ctx, random) =>
    STOCKS.map((e) => ({
      ticker: e.ticker,
      iv30: round(0.15 + random() * 0.6, 4),
      rv30: round(0.1 + random() * 0.5, 4),
      term_slope: round((random() - 0.5) * 0.2, 4),
    }))
      .map((r) => ({ ...r, iv_rv_spread: round(r.iv30 - r.rv30, 4) }))
      .sort((a, b) => b.iv_rv_spread - a.iv_rv_spread)
      .slice(0, rowCount(ctx, 25)),
  'market.oi_change': (ctx, random) =>
    Array.from({ length: rowCount(ctx, 50) }, () => {
      const e = pick(random, STOCKS);
      const strike = Math.round(e.spot * (0.9 + random() * 0.2));
      const right = random() < 0.5 ? 'C' : 'P';
      return {
        contract: `${e.ticker.replace('.', '')}261218${right}${String(strike * 1000).padStart(8, '0')}`,
        underlying: e.ticker,
        oi_change: Math.round((random() - 0.3) * 40000),
        open_interest: Math.round(random() * 200000),
      };
    }),
  'fundamentals.fundamental_breakdown': (ctx, random) =>
    Array.from({ length: rowCount(ctx, 8) }, (_, i) => ({
      fiscal_period: `FY${2026 - Math.floor(i / 4)}Q${4 - (i % 4)}`,
      form: i % 4 === 0 ? '10-K' : '10-Q',
      revenue_usd: Math.round(spotOf(ctx) * 1e8 * (0.8 + random() * 0.4)),
      net_income_usd: Math.round(spotOf(ctx) * 2e7 * (0.5 + random())),
      top_segment: pick(random, ['Products', 'Services', 'Cloud', 'Advertising', 'Other']),
    })),
  'institutions.ownership_by_ticker': (ctx, random) =>
    HOLDERS.slice(0, rowCount(ctx, 25)).map((holder, i) => ({
      holder,
      shares: Math.round((9 - i) * 1e7 * (0.8 + random() * 0.4)),
      change_pct: round((random() - 0.5) * 10, 2),
      filed_on: shiftDate(new Date(ctx.now).toISOString().slice(0, 10), -30 - i),
    })),
  'insider.buy_sells_by_ticker': (ctx, random) =>
    days(ctx, 30)
      .filter(() => random() < 0.4)
      .map((date) => ({
        date,
        buys: Math.floor(random() * 3),
        sells: Math.floor(random() * 5),
        buy_notional_usd: Math.round(random() * 2e6),
        sell_notional_usd: Math.round(random() * 9e6),
      })),
  'volatility.risk_reversal_skew': (ctx, random) => days(ctx, 60).map((date) => ({ date, rr25: round((random() - 0.65) * 0.08, 4) })),
  'shorts.volumes_by_exchange': (ctx, random) =>
    days(ctx, 20).flatMap((date) => VENUES.map((venue) => ({ date, venue, short_volume: Math.round(random() * 4e6) }))),
  'shorts.volume_and_ratio': (ctx, random) =>
    days(ctx, 60).map((date) => {
      const total = Math.round(5e6 + random() * 4e7);
      const shortVolume = Math.round(total * (0.3 + random() * 0.35));
      return { date, short_volume: shortVolume, total_volume: total, short_ratio: round(shortVolume / total, 4) };
    }),
  'volatility.anomaly': (ctx, random) => ({
    ticker: ctx.entry?.ticker ?? '',
    anomaly_score: round(random() * 100, 1),
    iv30: round(0.15 + random() * 0.5, 4),
    iv_percentile_1y: round(random() * 100, 1),
  }),
  'darkpool.by_ticker': (ctx, random) =>
    Array.from({ length: Math.min(rowCount(ctx, 50), 200) }, (_, i) => ({
      price_usd: round(spotOf(ctx) * (1 + (random() - 0.5) * 0.004)),
      size: Math.round(1000 + random() * 200000),
      venue: pick(random, VENUES),
      executed_at: new Date(ctx.now - i * 45_000).toISOString(),
    })),
  'stocks.dividends': (ctx, random) => {
    const amount = round(spotOf(ctx) * 0.004 * (0.9 + random() * 0.2), 4);
    return Array.from({ length: Math.min(rowCount(ctx, 20), 40) }, (_, i) => {
      const exDate = shiftDate(new Date(ctx.now).toISOString().slice(0, 10), -45 - i * 91);
      return { ex_date: exDate, pay_date: shiftDate(exDate, 14), amount_usd: amount, frequency: 'quarterly' };
    });
  },
  'market.correlations': (ctx, random) => {
    const tickers = String(ctx.query['tickers']).split(',');
    const pairs: Row[] = [];
    tickers.forEach((a, i) => tickers.slice(i + 1).forEach((b) => pairs.push({ a, b, correlation: round(0.2 + random() * 0.75, 3) })));
    return pairs;
  },
  'macro.forex_rate': (ctx, random) => {
    const pair = String(ctx.query['pair']);
    return {
      pair,
      base: pair.slice(0, 3),
      quote: pair.slice(3),
      rate: round(0.5 + random() * 1.2, 5),
      as_of: new Date(ctx.now).toISOString(),
    };
  },
};

/** Rows for a dataset the catalog does not know (registered later upstream). */
const GENERIC: Generator = (ctx, random) =>
  Array.from({ length: Math.min(rowCount(ctx, 10), 100) }, (_, i) => ({
    row: i + 1,
    ticker: ctx.entry?.ticker ?? null,
    value: round(random() * 100, 3),
  }));

export function generatePayload(ctx: GeneratorContext): Row[] | Row {
  const random = seededRandom(
    ctx.seed,
    ctx.operationId,
    ctx.entry?.ticker ?? '',
    JSON.stringify(ctx.query),
    new Date(ctx.now).toISOString().slice(0, 10),
  );
  return (GENERATORS[ctx.operationId] ?? GENERIC)(ctx, random);
}

/** `format=summary`: counts and numeric ranges instead of rows. */
export function summarize(payload: Row[] | Row): Row {
  const rows = Array.isArray(payload) ? payload : [payload];
  const summary: Row = { format: 'summary', row_count: rows.length };
  for (const key of Object.keys(rows[0] ?? {})) {
    const values = rows.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
    if (values.length === 0) continue;
    summary[`${key}_min`] = Math.min(...values);
    summary[`${key}_max`] = Math.max(...values);
  }
  return summary;
}
