/**
 * The dataset registry: one entry per dataset endpoint of the spec (1 to 22), in the
 * spec's order. Tools, simulator routes, the simulator's OpenAPI document, the README
 * tool table and the MCPB manifest are all derived from this table.
 *
 * `query` holds the upstream's query parameters; where the spec leaves them open (note C)
 * the names are chosen here, filters included (tickers on the short screener and
 * open-interest changes, a batch on the anomaly score, side and dates on congress trades).
 * `shaping` holds what this server does itself: the dealer history's views and time
 * ranges, and a cursor over pages it had to trim to fit the result budget.
 * Descriptions say what tells a tool apart; what all share is in the server instructions.
 */
import * as z from 'zod';
import { dealerGexHistoryResponse, dealerToolData } from './dealer-gex.js';
import { dealerShaping, pageCursor, side, tickerFilter } from './filter-params.js';
import * as p from './params.js';
import { darkpoolFilters, litFilters, oiChangeFilters } from './row-filters.js';
import type { DatasetDefinition, MetaEndpoint } from './types.js';

/**
 * Shared parameters with the short descriptions tools/list carries: what a schema's
 * pattern, enum or bounds already say, and what the server instructions say once
 * (tickers upper case, dates ET), is not repeated in every tool.
 */
function brief<T extends z.ZodType>(schema: T, description: string): T {
  return p.refusedAs(schema.describe(description), p.refusalCodeOf(schema));
}
// The pattern says it all; the instructions give examples once.
// No listed symbol comes near 12 characters (BRK.B, GOOGL): a longer one is refused here, never sent.
const ticker = p.refusedAs(z.string().max(12).regex(p.GENERAL_TICKER_PATTERN), 'TICKER_INVALID');
const from = p.etTradingDate.optional();
const to = p.etTradingDate.optional();
const sessionDate = brief(p.sessionDate, 'Default: latest session.').optional();
const summaryFormat = brief(p.summaryFormat, 'summary: aggregates instead of rows.').optional();
/** Rows per page; the bounds say the rest. */
function limit(max: number, fallback: number) {
  return z.coerce.number().int().min(1).max(max).default(fallback);
}

/** The built-in catalog, its literal ids and paths kept: they make the closed types below. */
const CATALOG = [
  {
    operationId: 'flow.ticker_overview',
    path: '/v1/flow/tickers/{ticker}/overview',
    title: 'Options flow overview',
    description:
      'Options flow summary and ranked contracts of one ticker over one or seven sessions. Administrator accounts only (else SCOPE_INSUFFICIENT).',
    ticker,
    query: { session_date: sessionDate, window: p.flowWindow.optional(), single_leg_only: p.singleLegOnly.optional() },
    onDemand: false,
    cacheClass: 'intraday',
    adminOnly: true,
    indexesSupported: true,
  },
  {
    operationId: 'options.chain_history',
    path: '/v1/options/chain-history/{ticker}',
    title: 'Option chain BBO history',
    description:
      'Historical best-bid-and-offer bars of one option chain (ticker, expiration, right) for one session; narrow to one contract with an OSI symbol.',
    ticker,
    query: {
      expiration: p.etTradingDate.describe('Option expiration date (YYYY-MM-DD).'),
      right: p.optionRight,
      interval: p.barInterval.optional(),
      session_date: sessionDate,
      contract: brief(p.osiContractSymbol, 'OSI symbol, e.g. SPY261218C00600000').optional(),
    },
    shaping: { cursor: pageCursor },
    onDemand: true,
    cacheClass: 'daily',
    indexesSupported: true,
  },
  {
    operationId: 'stocks.sector_tickers',
    path: '/v1/stocks/sector-tickers',
    title: 'Tickers in a sector',
    description: 'Tickers that belong to one of the 11 sectors.',
    query: { sector: p.sector },
    shaping: { cursor: pageCursor },
    onDemand: true,
    cacheClass: 'static',
  },
  {
    operationId: 'derived.dealer_gex_history',
    path: '/v1/derived/dealer-gex/{ticker}/history',
    title: 'Dealer gamma exposure (0DTE) history',
    description:
      'Dealer gamma exposure (0DTE), 5-minute snapshots, last three sessions. Default: newest snapshot. view=levels: a row per snapshot (spot, flip, king, walls, total GEX) for a session or from/to; view=full adds strikes; view=sessions summarises each session. GEX: USD per 1% move. Spot above the gamma flip: dealers long gamma, moves dampened; below: short gamma, moves amplified. King strike (largest |GEX|) pulls price; call wall resists, put wall supports.',
    ticker: p.dealerTicker,
    // Upstream: page size and cursor only. View, session and time range are applied here.
    query: { limit: limit(60, 6), cursor: p.cursor.optional() },
    shaping: dealerShaping,
    toolOutput: dealerToolData,
    onDemand: false,
    cacheClass: 'intraday',
    indexesSupported: true,
    capability: 'dealer_heatmap',
    response: dealerGexHistoryResponse,
  },
  {
    operationId: 'market.total_options_volume',
    path: '/v1/market/total-options-volume',
    title: 'Total options volume',
    description: 'Market-wide total options volume and premium per trading day, calls and puts.',
    query: { from: from, to: to, limit: limit(500, 30) },
    shaping: { cursor: pageCursor },
    onDemand: false,
    cacheClass: 'daily',
    retentionDays: 730,
  },
  {
    operationId: 'stocks.ticker_exchanges',
    path: '/v1/stocks/ticker-exchanges',
    title: 'Ticker to exchange directory',
    description:
      'Ticker to listing-exchange directory: the raw vendor list, delisted symbols included. Large: use a small limit or format=summary.',
    // Its largest page within the API's 256 KiB response ceiling (~80 bytes a row): 10,000 was refused above ~3,300.
    query: { limit: limit(3000, 500), format: summaryFormat },
    shaping: { cursor: pageCursor },
    onDemand: false,
    cacheClass: 'static',
  },
  {
    operationId: 'shorts.short_screener',
    path: '/v1/shorts/short-screener',
    title: 'Short-interest screener',
    description:
      'Short interest of the latest disclosure period, most shorted first: shares, short_float_pct (percent of free float), days_to_cover (short interest / average daily volume).',
    query: {
      min_short_float_pct: z.coerce.number().min(0).max(100).describe('Minimum percent of float.').optional(),
      tickers: tickerFilter,
      limit: limit(1000, 50),
      format: summaryFormat,
    },
    shaping: { cursor: pageCursor },
    onDemand: false,
    cacheClass: 'daily',
  },
  {
    operationId: 'congress.recent_trades',
    path: '/v1/congress/recent-trades',
    title: 'Congress trades',
    description: 'Disclosed stock trades of members of Congress, newest first, disclosed daily; amounts are the disclosed USD ranges.',
    query: {
      chamber: z.enum(['house', 'senate']).optional(),
      tickers: tickerFilter,
      side,
      from: from,
      to: to,
      limit: limit(500, 50),
    },
    shaping: { cursor: pageCursor },
    onDemand: false,
    cacheClass: 'daily',
  },
  {
    operationId: 'stocks.lit_trades_recent',
    path: '/v1/stocks/lit-trades-recent',
    title: 'Recent lit-exchange prints',
    description: 'Most recent market-wide stock prints on lit exchanges.',
    // Its largest page within the API's 256 KiB response ceiling (~140 bytes a print): 5,000 was refused above ~1,850.
    query: { limit: limit(1500, 100), format: summaryFormat },
    shaping: { cursor: pageCursor, ...litFilters },
    onDemand: false,
    cacheClass: 'intraday',
  },
  {
    operationId: 'volatility.character_top',
    path: '/v1/volatility/character-top',
    title: 'Volatility-character leaderboard',
    description: 'Leaderboard by volatility character: iv30 and rv30 (30-day implied and realized, decimals), their spread, term slope.',
    query: { limit: limit(200, 25) },
    shaping: { cursor: pageCursor },
    onDemand: false,
    cacheClass: 'daily',
  },
  {
    operationId: 'market.oi_change',
    path: '/v1/market/oi-change',
    title: 'Top open-interest changes',
    description: 'Largest open-interest changes (contracts) across optionable underlyings for one session. Filter by tickers.',
    query: { session_date: sessionDate, tickers: tickerFilter, limit: limit(2000, 50), format: summaryFormat },
    shaping: { cursor: pageCursor, ...oiChangeFilters },
    onDemand: false,
    cacheClass: 'daily',
    retentionDays: 365,
  },
  {
    operationId: 'fundamentals.fundamental_breakdown',
    path: '/v1/fundamentals/fundamental-breakdown/{ticker}',
    title: 'Fundamentals and revenue breakdown',
    description: 'Filing-level fundamentals and the XBRL revenue breakdown of one company.',
    ticker,
    query: { limit: limit(40, 8) },
    shaping: { cursor: pageCursor },
    onDemand: true,
    cacheClass: 'filings',
    indexesSupported: false,
  },
  {
    operationId: 'institutions.ownership_by_ticker',
    path: '/v1/institutions/ownership-by-ticker/{ticker}',
    title: 'Institutional holders',
    description: 'Holders of one ticker from 13F filings (shares; change_pct since the previous filing), largest first.',
    ticker,
    query: { limit: limit(500, 25) },
    shaping: { cursor: pageCursor },
    onDemand: true,
    cacheClass: 'filings',
    indexesSupported: false,
  },
  {
    operationId: 'insider.buy_sells_by_ticker',
    path: '/v1/insider/buy-sells-by-ticker/{ticker}',
    title: 'Insider buys and sells',
    description: 'Insider buy and sell counts and notionals per disclosure day for one ticker.',
    ticker,
    query: { from: from, to: to },
    shaping: { cursor: pageCursor },
    onDemand: true,
    cacheClass: 'filings',
    indexesSupported: false,
    retentionDays: 1825,
  },
  {
    operationId: 'volatility.risk_reversal_skew',
    path: '/v1/volatility/risk-reversal-skew/{ticker}',
    title: 'Risk-reversal skew',
    description:
      'Daily 25-delta risk reversal, 30-day tenor: call IV minus put IV as a decimal (-0.02 = puts 2 vol points over calls: puts bid).',
    ticker,
    query: { from: from, to: to },
    shaping: { cursor: pageCursor },
    onDemand: true,
    cacheClass: 'daily',
    indexesSupported: true,
    retentionDays: 730,
  },
  {
    operationId: 'shorts.volumes_by_exchange',
    path: '/v1/shorts/volumes-by-exchange/{ticker}',
    title: 'Short volume by venue',
    description: 'Daily short volume by reporting venue for one ticker.',
    ticker,
    query: { from: from, to: to },
    shaping: { cursor: pageCursor },
    onDemand: true,
    cacheClass: 'daily',
    indexesSupported: false,
    retentionDays: 365,
  },
  {
    operationId: 'shorts.volume_and_ratio',
    path: '/v1/shorts/volume-and-ratio/{ticker}',
    title: 'Short volume and ratio',
    description: 'Daily short volume and total volume (shares) and short ratio (short / total, 0 to 1) for one ticker.',
    ticker,
    query: { from: from, to: to },
    shaping: { cursor: pageCursor },
    onDemand: true,
    cacheClass: 'daily',
    indexesSupported: false,
    retentionDays: 365,
  },
  {
    operationId: 'volatility.anomaly',
    path: '/v1/volatility/anomaly/{ticker}',
    title: 'Volatility anomaly score',
    description:
      'How unusual implied volatility is against its own 1-year history: anomaly_score 0 (usual) to 100 (most unusual); iv30 as a decimal. Up to 10 tickers in one call with with_tickers.',
    ticker,
    query: { with_tickers: brief(tickerFilter.unwrap(), 'More tickers, e.g. MSFT,NVDA.').optional() },
    onDemand: true,
    cacheClass: 'daily',
    indexesSupported: true,
  },
  {
    operationId: 'darkpool.by_ticker',
    path: '/v1/darkpool/by-ticker/{ticker}',
    title: 'Dark-pool prints',
    description: 'Most recent dark-pool (off-exchange) prints for one ticker.',
    ticker,
    // The upstream's own cursor reads further back in a session (a time window past the newest 500 prints).
    query: { session_date: sessionDate, limit: limit(500, 50), cursor: p.cursor.optional() },
    shaping: { cursor: pageCursor, ...darkpoolFilters },
    onDemand: true,
    cacheClass: 'intraday',
    indexesSupported: false,
  },
  {
    operationId: 'stocks.dividends',
    path: '/v1/stocks/dividends/{ticker}',
    title: 'Dividend history',
    description: 'Dividends of one ticker: ex-date, pay date, USD amount per share.',
    ticker,
    query: { limit: limit(200, 20) },
    shaping: { cursor: pageCursor },
    onDemand: true,
    cacheClass: 'filings',
    indexesSupported: false,
  },
  {
    operationId: 'market.correlations',
    path: '/v1/market/correlations',
    title: 'Return correlations',
    description: 'Pairwise daily-return correlations across 2 to 10 tickers.',
    query: {
      tickers: p.tickerList,
      lookback_days: z.coerce.number().int().min(20).max(252).describe('Trading days of returns, 20 to 252 (default 60).').optional(),
    },
    shaping: { cursor: pageCursor },
    onDemand: true,
    cacheClass: 'daily',
  },
  {
    operationId: 'macro.forex_rate',
    path: '/v1/macro/forex-rate',
    title: 'FX spot rate',
    description: 'Current FX spot rate of one currency pair.',
    query: { pair: p.currencyPair },
    onDemand: true,
    cacheClass: 'intraday',
  },
] as const satisfies readonly DatasetDefinition[];

/** Operation ids of the built-in catalog: a closed type, so that anything keyed by them (the simulator's generators) must cover each one or fail the type check. */
export type OperationId = (typeof CATALOG)[number]['operationId'];

export const DATASETS: readonly DatasetDefinition[] = CATALOG;

/** The toolset of a catalog path: its first segment after /v1. */
type ToolsetOfPath<P> = P extends `/v1/${infer T}/${string}` ? T : never;
/** Toolsets of the built-in catalog: a closed type. */
export type Toolset = ToolsetOfPath<(typeof CATALOG)[number]['path']>;

/**
 * Every toolset of the catalog, in catalog order, with what it holds: what `--toolsets`
 * chooses between. A catalog path under a new toolset fails the type check here until it
 * is described; a toolset left without datasets fails it too.
 */
export const TOOLSETS = {
  flow: 'Options flow of one ticker: premium, volume and sentiment by window.',
  options: 'Option chains and contract history.',
  stocks: 'Directories and per-stock facts: sector members, exchanges, lit trades, dividends.',
  derived: 'Derived analytics: dealer gamma exposure history.',
  market: 'Market-wide options volume, open-interest change and correlations.',
  shorts: 'Short interest, short volume and the short screener.',
  congress: 'Trades disclosed by members of Congress.',
  volatility: 'Implied-volatility character, skew and anomalies.',
  fundamentals: 'Revenue and margin breakdowns of companies.',
  institutions: 'Institutional ownership by ticker.',
  insider: 'Insider buys and sells by ticker.',
  darkpool: 'Dark-pool prints by ticker.',
  macro: 'Macro series: foreign-exchange rates.',
} as const satisfies Record<Toolset, string>;

/** Free self-description endpoints: no quota charge. */
export const META_ENDPOINTS: readonly MetaEndpoint[] = [
  {
    operationId: 'meta.discover',
    path: '/v1/discover',
    title: 'Discover',
    description: "The key's access scope, available datasets and coverage, and quota.",
  },
  { operationId: 'meta.health', path: '/v1/health', title: 'Health', description: 'Service health.' },
  {
    operationId: 'meta.openapi',
    path: '/v1/openapi.json',
    title: 'OpenAPI document',
    description: 'Machine-readable description of the API (OpenAPI 3.1.0).',
  },
];

/** Toolset of a dataset: the first path segment after /v1 (`flow`, `derived`, `shorts`...). */
export function toolsetOf(dataset: Pick<DatasetDefinition, 'path'>): string {
  return dataset.path.split('/')[2] ?? 'misc';
}

/** Scope a key needs to read a dataset; the spec leaves scope names open. */
export function scopeOf(dataset: Pick<DatasetDefinition, 'path'>): string {
  return `read:${toolsetOf(dataset)}`;
}
