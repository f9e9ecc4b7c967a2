/**
 * Filing-based datasets: fundamentals (10-Q/10-K), 13F holders, Form 4 insider trades,
 * congressional disclosures, dividends. Counts agree with notionals, segments are the
 * company's own, holders are sorted, and only payers pay.
 */
import { nextTradingDay, shiftDate, tradingDayOnOrBefore, tradingDaysBetween, type EtDate } from '../../catalog/market-calendar.js';
import { closeOn } from '../market.js';
import { gaussian, pick, round, seededRandom } from '../random.js';
import { STOCKS, type ReferenceSymbol } from '../reference.js';
import type { CongressSide } from '../../catalog/index.js';
import { limitOf, requireSymbol, stringParam, type FilterFields, type Generator, type GeneratorContext, type Row } from './context.js';
import { closeInstant, requestedDays } from './days.js';
import { filedQuarters } from './fiscal.js';

/** Calendar quarter ends, newest first, whose report is filed by `date` (13F periods are calendar quarters). */
function reportedQuarters(date: EtDate, count: number, lagDays: number): EtDate[] {
  const ends: EtDate[] = [];
  let year = Number(date.slice(0, 4));
  let quarter = 4;
  while (ends.length < count) {
    const month = quarter * 3;
    const end = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    if (shiftDate(end, lagDays) <= date) ends.push(end);
    quarter -= 1;
    if (quarter === 0) {
      quarter = 4;
      year -= 1;
    }
  }
  return ends;
}

/**
 * Every reported segment's revenue for a quarter, largest first, adding up to the revenue:
 * the mix moves a little each quarter (a product cycle, a strong services quarter).
 */
function segmentRevenues(
  segments: readonly (readonly [string, number])[],
  revenue: number,
  random: () => number,
): { segment: string; revenue_usd: number }[] {
  const weights = segments.map(([, share]) => share * Math.exp(0.05 * gaussian(random)));
  const total = weights.reduce((a, b) => a + b, 0) || 1;
  const split = segments.map(([segment], i) => ({ segment, revenue_usd: Math.round((revenue * (weights[i] ?? 0)) / total) }));
  // Rounding leaves a few dollars over or short: the largest segment carries them, so the parts add up.
  const first = split[0];
  if (first) first.revenue_usd += revenue - split.reduce((sum, s) => sum + s.revenue_usd, 0);
  return split.sort((a, b) => b.revenue_usd - a.revenue_usd);
}

export const fundamentalBreakdown: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  // A fund files no 10-Q: no rows (other tools' callers pass SPY everywhere, and get an honest empty answer).
  if (symbol.kind !== 'stock' || symbol.revenueB === undefined) return { data: [], asOf: ctx.now };
  const revenueB = symbol.revenueB;
  const margin = symbol.margin ?? 0.1;
  const growth = symbol.style === 'growth' ? 0.15 : 0.04;
  const segments = [...(symbol.segments ?? [['Total', 1] as const])].sort((a, b) => b[1] - a[1]);
  const rows = filedQuarters(symbol.ticker, ctx.session.date, limitOf(ctx, 8)).map((quarter, i) => {
    const end = quarter.periodEnd;
    const random = seededRandom(ctx.seed, 'fundamentals', symbol.ticker, end);
    const revenue = Math.round(((revenueB * 1e9) / 4) * (1 + growth) ** (-i / 4) * Math.exp(0.03 * gaussian(random)));
    const netIncome = Math.round(revenue * (margin + 0.015 * gaussian(random)));
    const split = segmentRevenues(segments, revenue, random);
    const top = split[0];
    return {
      fiscal_period: quarter.label,
      period_end: end,
      fiscal_year_end: quarter.fiscalYearEnd,
      form: quarter.form,
      reported_on: quarter.reportedOn,
      filed_on: quarter.filedOn,
      revenue_usd: revenue,
      net_income_usd: netIncome,
      eps_diluted_usd: round(netIncome / (symbol.sharesM * 1e6), 2),
      top_segment: top?.segment ?? 'Total',
      top_segment_revenue_usd: top?.revenue_usd ?? revenue,
      segments: split,
    };
  });
  return { data: rows, asOf: closeInstant(String(rows[0]?.reported_on ?? ctx.session.date), ctx) };
};

/** 13F filers with their usual share of a large company, percent of shares outstanding. */
const HOLDERS: readonly (readonly [string, number])[] = [
  ['Vanguard Group Inc.', 8.9],
  ['BlackRock, Inc.', 7.2],
  ['State Street Corporation', 3.9],
  ['FMR LLC (Fidelity)', 2.6],
  ['Geode Capital Management', 2.1],
  ['Capital Research and Management', 1.6],
  ['Morgan Stanley', 1.3],
  ['T. Rowe Price Associates', 1.2],
  ['JPMorgan Chase & Co.', 1.1],
  ['Northern Trust Corporation', 1.0],
  ['Norges Bank Investment Management', 0.9],
  ['Wellington Management', 0.8],
  ['Goldman Sachs Group', 0.7],
  ['Invesco Ltd.', 0.7],
  ['Bank of America Corporation', 0.65],
  ['Charles Schwab Investment Management', 0.6],
  ['UBS Asset Management', 0.55],
  ['Dimensional Fund Advisors', 0.5],
  ['BNY Mellon', 0.5],
  ['Legal & General Investment Management', 0.45],
  ['Amundi', 0.4],
  ['Citadel Advisors', 0.3],
  ['Jane Street Group', 0.25],
  ['Susquehanna International Group', 0.25],
  ['Renaissance Technologies', 0.2],
];

/** Index managers: their stakes follow the index weight and move a fraction of a percent a quarter. */
const PASSIVE = new Set([
  'Vanguard Group Inc.',
  'BlackRock, Inc.',
  'State Street Corporation',
  'Geode Capital Management',
  'Northern Trust Corporation',
  'Norges Bank Investment Management',
  'Charles Schwab Investment Management',
  'Legal & General Investment Management',
  'BNY Mellon',
  'Amundi',
  'UBS Asset Management',
]);

/** Quarterly spread of a stake, in log terms: an index fund drifts, an active manager trades. */
function quarterlyDrift(holder: string): number {
  return PASSIVE.has(holder) ? 0.004 : 0.03;
}

function holding(ctx: GeneratorContext, symbol: ReferenceSymbol, holder: string, weight: number, period: EtDate): number {
  // A holder's stake is mostly persistent, moving by its own drift a quarter.
  const persistent = gaussian(seededRandom(ctx.seed, '13f', symbol.ticker, holder));
  const quarterly = (gaussian(seededRandom(ctx.seed, '13f', symbol.ticker, holder, period)) * quarterlyDrift(holder)) / 0.025;
  // Closely held floats (WMT, ORCL, BRK.B) leave less for institutions.
  const floatShare = symbol.floatM / Math.max(symbol.sharesM, 1);
  return Math.round(symbol.sharesM * 1e6 * (weight / 100) * floatShare * Math.exp(0.12 * persistent + 0.025 * quarterly));
}

export const ownershipByTicker: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  const [period, previous] = reportedQuarters(ctx.session.date, 2, 45);
  if (!period || !previous) return { data: [], asOf: ctx.now };
  const price = closeOn(ctx.seed, symbol, period);
  const rows = HOLDERS.map(([holder, weight]) => {
    const shares = holding(ctx, symbol, holder, weight, period);
    const before = holding(ctx, symbol, holder, weight, previous);
    const random = seededRandom(ctx.seed, '13f-filed', holder, period);
    return {
      holder,
      report_period: period,
      filed_on: tradingDayOnOrBefore(shiftDate(period, 30 + Math.floor(random() * 15))),
      shares,
      pct_of_shares_out: round((shares / (symbol.sharesM * 1e6)) * 100, 3),
      value_usd: Math.round(shares * price),
      change_shares: shares - before,
      change_pct: round(((shares - before) / Math.max(1, before)) * 100, 2),
    };
  }).sort((a, b) => b.shares - a.shares || a.holder.localeCompare(b.holder));
  return { data: rows.slice(0, limitOf(ctx, 25)), asOf: closeInstant(shiftDate(period, 45), ctx) };
};

const FIRST_NAMES = [
  'Avery',
  'Jordan',
  'Morgan',
  'Casey',
  'Elena',
  'Samuel',
  'Naomi',
  'Victor',
  'Ingrid',
  'Rafael',
  'Lena',
  'Owen',
  'Priya',
  'Tobias',
  'Marguerite',
  'Desmond',
  'Keiko',
  'Anselm',
] as const;
const LAST_NAMES = [
  'Hartley',
  'Okoro',
  'Brandt',
  'Castellano',
  'Nakamura',
  'Lindgren',
  'Mercer',
  'Abernathy',
  'Duval',
  'Sorensen',
  'Vasquez',
  'Whitcombe',
  'Achterberg',
  'Fairbanks',
  'Oyelaran',
  'Templeton',
  'Halvorsen',
  'Quintero',
] as const;
/** One filer per role: a board and officers file Form 4, each under their own title. */
const ROLES = [
  'Chief Executive Officer',
  'Chief Financial Officer',
  'Chief Operating Officer',
  'General Counsel',
  'Lead Independent Director',
  'Director',
] as const;

/** `count` items of `items` in a seeded order, none twice. */
function drawDistinct<T>(random: () => number, items: readonly T[], count: number): T[] {
  const pool = [...items];
  for (let i = pool.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as T, pool[i] as T];
  }
  return pool.slice(0, count);
}

/**
 * A company's Form 4 filers, one per role: fictional names, as the trades are synthetic, no
 * two sharing a first or a last name (four NVDA insiders once shared a surname).
 */
function insidersOf(seed: number, symbol: ReferenceSymbol): { name: string; role: string }[] {
  const random = seededRandom(seed, 'insiders', symbol.ticker);
  const firsts = drawDistinct(random, FIRST_NAMES, ROLES.length);
  const lasts = drawDistinct(random, LAST_NAMES, ROLES.length);
  return ROLES.map((role, i) => ({ name: `${firsts[i] ?? 'Avery'} ${lasts[i] ?? 'Hartley'}`, role }));
}

export const insiderBuySells: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  // Fund shares have no officers or directors filing Form 4.
  if (symbol.kind !== 'stock') return { data: [], asOf: ctx.now };
  const days = requestedDays(ctx, 90);
  const rows: Row[] = [];
  for (const date of days) {
    const random = seededRandom(ctx.seed, 'form4', symbol.ticker, date);
    if (random() > 0.18) continue;
    const price = closeOn(ctx.seed, symbol, date);
    let buys = 0;
    let sells = 0;
    let buyShares = 0;
    let sellShares = 0;
    const count = 1 + Math.floor(random() * 3);
    const roster = insidersOf(ctx.seed, symbol);
    const filers: { name: string; role: string; side: 'buy' | 'sell'; shares: number }[] = [];
    for (let i = 0; i < count; i += 1) {
      const shares = Math.max(100, Math.round((Math.exp(8 + 1.2 * gaussian(random)) * 100) / Math.max(1, price) / 10) * 10);
      const insider = pick(random, roster);
      // Insiders sell far more often than they buy (grants, 10b5-1 plans); directors buy more often than officers.
      const side = random() < (insider.role.endsWith('Director') ? 0.3 : 0.1) ? 'buy' : 'sell';
      if (side === 'buy') {
        buys += 1;
        buyShares += shares;
      } else {
        sells += 1;
        sellShares += shares;
      }
      filers.push({ name: insider.name, role: insider.role, side, shares });
    }
    rows.push({
      date,
      buys,
      sells,
      buy_shares: buyShares,
      sell_shares: sellShares,
      buy_notional_usd: Math.round(buyShares * price),
      sell_notional_usd: Math.round(sellShares * price),
      filers,
    });
  }
  return { data: rows, asOf: closeInstant(days[0] ?? ctx.session.date, ctx) };
};

/** Fictional members: the trades are synthetic, so the names must not belong to real people. */
const MEMBERS = [
  { member: 'Rep. Alicia Rivera', chamber: 'house', party: 'D', state: 'CA' },
  { member: 'Rep. Thomas Okafor', chamber: 'house', party: 'R', state: 'TX' },
  { member: 'Rep. Dana Whitfield', chamber: 'house', party: 'R', state: 'FL' },
  { member: 'Rep. Marcus Lindqvist', chamber: 'house', party: 'D', state: 'NY' },
  { member: 'Rep. Priya Haddad', chamber: 'house', party: 'D', state: 'IL' },
  { member: 'Sen. Brian Caldwell', chamber: 'senate', party: 'R', state: 'OH' },
  { member: 'Sen. Helen Chen', chamber: 'senate', party: 'D', state: 'WA' },
  { member: 'Sen. Robert Vance', chamber: 'senate', party: 'R', state: 'GA' },
] as const;
const AMOUNT_BANDS = ['$1,001 - $15,000', '$15,001 - $50,000', '$50,001 - $100,000', '$100,001 - $250,000', '$250,001 - $500,000'];

/** One disclosed trade; `side` uses the catalog's vocabulary, so the `side` filter's value is the row's. */
type CongressTrade = (typeof MEMBERS)[number] & {
  ticker: string;
  side: CongressSide;
  amount_range_usd: string;
  traded_on: EtDate;
  disclosed_on: EtDate;
};

/** What the `tickers`, `side` and `from`/`to` filters read (query-filters.ts). */
export const congressFilterFields = { ticker: 'ticker', side: 'side', date: 'disclosed_on' } as const satisfies FilterFields<CongressTrade>;

export const congressRecentTrades: Generator = (ctx) => {
  const chamber = stringParam(ctx, 'chamber');
  const limit = limitOf(ctx, 50);
  const rows: CongressTrade[] = [];
  for (const disclosed of tradingDaysBetween(shiftDate(ctx.session.date, -365), ctx.session.date)) {
    if (rows.length >= limit) break;
    const random = seededRandom(ctx.seed, 'congress', disclosed);
    const count = Math.floor(random() * 6);
    for (let i = 0; i < count && rows.length < limit; i += 1) {
      const who = pick(random, MEMBERS);
      const symbol = pick(random, STOCKS);
      // The STOCK Act allows 45 days between the trade and its disclosure.
      const traded = tradingDayOnOrBefore(shiftDate(disclosed, -(3 + Math.floor(random() * 40))));
      const side: CongressSide = random() < 0.55 ? 'buy' : 'sell';
      const amount = pick(random, AMOUNT_BANDS);
      if (chamber !== undefined && who.chamber !== chamber) continue;
      rows.push({ ...who, ticker: symbol.ticker, side, amount_range_usd: amount, traded_on: traded, disclosed_on: disclosed });
    }
  }
  return { data: rows, asOf: closeInstant(ctx.session.date, ctx) };
};

const PAYMENTS_PER_YEAR = { monthly: 12, quarterly: 4, semiannual: 2, annual: 1 } as const;

export const dividends: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  const policy = symbol.dividend;
  if (!policy) return { data: [], asOf: closeInstant(ctx.session.date, ctx) };
  const perYear = PAYMENTS_PER_YEAR[policy.frequency];
  const months = 12 / perYear;
  const random = seededRandom(ctx.seed, 'dividend-calendar', symbol.ticker);
  const phase = Math.floor(random() * months);
  const day = 5 + Math.floor(random() * 20);
  const rows: Row[] = [];
  let year = Number(ctx.session.date.slice(0, 4));
  let month = 12;
  while (rows.length < limitOf(ctx, 20) && year > 2000) {
    if ((month - 1) % months === phase) {
      const exDate = nextTradingDay(shiftDate(`${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`, -1));
      if (policy.since !== undefined && exDate < policy.since) break;
      if (exDate <= ctx.session.date) {
        const yearsBack = Number(ctx.session.date.slice(0, 4)) - year;
        // Payers raise once a year: older payments are a few percent smaller.
        const amount = round((policy.annualUsd / perYear) * 0.95 ** yearsBack, 4);
        rows.push({
          ex_date: exDate,
          record_date: exDate,
          pay_date: nextTradingDay(shiftDate(exDate, 14)),
          amount_usd: amount,
          frequency: policy.frequency,
        });
      }
    }
    month -= 1;
    if (month === 0) {
      month = 12;
      year -= 1;
    }
  }
  return { data: rows, asOf: closeInstant(ctx.session.date, ctx) };
};
