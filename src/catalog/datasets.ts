/**
 * The dataset registry: one entry per dataset endpoint of the spec (1 to 22), in the
 * spec's order. Tools, simulator routes, the simulator's OpenAPI document, the README
 * tool table and the MCPB manifest are all derived from this table.
 */
import * as z from 'zod';
import { dealerGexHistoryResponse } from './dealer-gex.js';
import * as p from './params.js';
import type { DatasetDefinition, MetaEndpoint } from './types.js';

export const DATASETS: readonly DatasetDefinition[] = [
  {
    operationId: 'flow.ticker_overview',
    path: '/v1/flow/tickers/{ticker}/overview',
    title: 'Options flow overview',
    description:
      'Options flow summary for one ticker and its ranked contracts over one or seven trading sessions. Currently limited to administrator accounts; others get SCOPE_INSUFFICIENT.',
    ticker: p.generalTicker,
    query: { session_date: p.sessionDate.optional(), window: p.flowWindow.optional(), single_leg_only: p.singleLegOnly.optional() },
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
      'Historical best-bid-and-offer bars of one option chain (ticker, expiration, right) for one session; narrow to one contract with an OSI symbol. Built on demand.',
    ticker: p.generalTicker,
    query: {
      expiration: p.etTradingDate.describe('Option expiration date (YYYY-MM-DD).'),
      right: p.optionRight,
      interval: p.barInterval.optional(),
      session_date: p.sessionDate.optional(),
      contract: p.osiContractSymbol.optional(),
    },
    onDemand: true,
    cacheClass: 'daily',
    indexesSupported: true,
  },
  {
    operationId: 'stocks.sector_tickers',
    path: '/v1/stocks/sector-tickers',
    title: 'Tickers in a sector',
    description: 'Tickers that belong to one of the 11 sectors. Built on demand.',
    query: { sector: p.sector },
    onDemand: true,
    cacheClass: 'static',
  },
  {
    operationId: 'derived.dealer_gex_history',
    path: '/v1/derived/dealer-gex/{ticker}/history',
    title: 'Dealer gamma exposure (0DTE) history',
    description:
      'Dealer gamma exposure (0DTE) in 5-minute snapshots over the last three exchange sessions, newest first: per-strike net GEX and the levels that matter (king strike, gamma flip, call and put walls). Page with cursor.',
    ticker: p.dealerTicker,
    query: { limit: p.limit(60, 6), cursor: p.cursor.optional() },
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
    query: { from: p.fromDate.optional(), to: p.toDate.optional(), limit: p.limit(500, 30) },
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
    query: { limit: p.limit(10000, 500), format: p.summaryFormat.optional() },
    onDemand: false,
    cacheClass: 'static',
  },
  {
    operationId: 'shorts.short_screener',
    path: '/v1/shorts/short-screener',
    title: 'Short-interest screener',
    description:
      'Market-wide short-interest screener for the latest disclosure period: short interest, percent of float, days to cover. Start here for short-squeeze candidates.',
    query: {
      min_short_float_pct: z.coerce
        .number()
        .min(0)
        .max(100)
        .describe('Keep rows with short interest at or above this percent of float.')
        .optional(),
      limit: p.limit(1000, 50),
      format: p.summaryFormat.optional(),
    },
    onDemand: false,
    cacheClass: 'daily',
  },
  {
    operationId: 'congress.recent_trades',
    path: '/v1/congress/recent-trades',
    title: 'Congress trades',
    description: 'Latest disclosed stock trades of members of Congress (daily disclosure cadence).',
    query: { chamber: z.enum(['house', 'senate']).describe('Chamber: house or senate.').optional(), limit: p.limit(500, 50) },
    onDemand: false,
    cacheClass: 'daily',
  },
  {
    operationId: 'stocks.lit_trades_recent',
    path: '/v1/stocks/lit-trades-recent',
    title: 'Recent lit-exchange prints',
    description: 'Most recent market-wide stock prints on lit exchanges.',
    query: { limit: p.limit(5000, 100), format: p.summaryFormat.optional() },
    onDemand: false,
    cacheClass: 'intraday',
  },
  {
    operationId: 'volatility.character_top',
    path: '/v1/volatility/character-top',
    title: 'Volatility-character leaderboard',
    description: 'Market-wide leaderboard of tickers by volatility character (realized versus implied, term structure).',
    query: { limit: p.limit(200, 25) },
    onDemand: false,
    cacheClass: 'daily',
  },
  {
    operationId: 'market.oi_change',
    path: '/v1/market/oi-change',
    title: 'Top open-interest changes',
    description: 'Largest open-interest changes across all optionable underlyings for one session.',
    query: { session_date: p.sessionDate.optional(), limit: p.limit(2000, 50), format: p.summaryFormat.optional() },
    onDemand: false,
    cacheClass: 'daily',
    retentionDays: 365,
  },
  {
    operationId: 'fundamentals.fundamental_breakdown',
    path: '/v1/fundamentals/fundamental-breakdown/{ticker}',
    title: 'Fundamentals and revenue breakdown',
    description: 'Filing-level fundamentals and the XBRL revenue breakdown of one company. Built on demand.',
    ticker: p.generalTicker,
    query: { limit: p.limit(40, 8) },
    onDemand: true,
    cacheClass: 'filings',
    indexesSupported: false,
  },
  {
    operationId: 'institutions.ownership_by_ticker',
    path: '/v1/institutions/ownership-by-ticker/{ticker}',
    title: 'Institutional holders',
    description: 'Institutional holders of one ticker from 13F filings, largest first. Built on demand.',
    ticker: p.generalTicker,
    query: { limit: p.limit(500, 25) },
    onDemand: true,
    cacheClass: 'filings',
    indexesSupported: false,
  },
  {
    operationId: 'insider.buy_sells_by_ticker',
    path: '/v1/insider/buy-sells-by-ticker/{ticker}',
    title: 'Insider buys and sells',
    description: 'Insider buy and sell counts and notionals per disclosure day for one ticker. Built on demand.',
    ticker: p.generalTicker,
    query: { from: p.fromDate.optional(), to: p.toDate.optional() },
    onDemand: true,
    cacheClass: 'filings',
    indexesSupported: false,
    retentionDays: 1825,
  },
  {
    operationId: 'volatility.risk_reversal_skew',
    path: '/v1/volatility/risk-reversal-skew/{ticker}',
    title: 'Risk-reversal skew',
    description: 'Daily 25-delta risk-reversal skew series for one ticker. Built on demand.',
    ticker: p.generalTicker,
    query: { from: p.fromDate.optional(), to: p.toDate.optional() },
    onDemand: true,
    cacheClass: 'daily',
    indexesSupported: true,
    retentionDays: 730,
  },
  {
    operationId: 'shorts.volumes_by_exchange',
    path: '/v1/shorts/volumes-by-exchange/{ticker}',
    title: 'Short volume by venue',
    description: 'Daily short volume by reporting venue for one ticker. Built on demand.',
    ticker: p.generalTicker,
    query: { from: p.fromDate.optional(), to: p.toDate.optional() },
    onDemand: true,
    cacheClass: 'daily',
    indexesSupported: false,
    retentionDays: 365,
  },
  {
    operationId: 'shorts.volume_and_ratio',
    path: '/v1/shorts/volume-and-ratio/{ticker}',
    title: 'Short volume and ratio',
    description: 'Daily short volume, total volume and short ratio series for one ticker. Built on demand.',
    ticker: p.generalTicker,
    query: { from: p.fromDate.optional(), to: p.toDate.optional() },
    onDemand: true,
    cacheClass: 'daily',
    indexesSupported: false,
    retentionDays: 365,
  },
  {
    operationId: 'volatility.anomaly',
    path: '/v1/volatility/anomaly/{ticker}',
    title: 'Volatility anomaly score',
    description: 'Volatility anomaly score of one ticker: how unusual its implied volatility is against its own history. Built on demand.',
    ticker: p.generalTicker,
    query: {},
    onDemand: true,
    cacheClass: 'daily',
    indexesSupported: true,
  },
  {
    operationId: 'darkpool.by_ticker',
    path: '/v1/darkpool/by-ticker/{ticker}',
    title: 'Dark-pool prints',
    description: 'Most recent dark-pool (off-exchange) prints for one ticker. Built on demand.',
    ticker: p.generalTicker,
    query: { session_date: p.sessionDate.optional(), limit: p.limit(500, 50) },
    onDemand: true,
    cacheClass: 'intraday',
    indexesSupported: false,
  },
  {
    operationId: 'stocks.dividends',
    path: '/v1/stocks/dividends/{ticker}',
    title: 'Dividend history',
    description: 'Dividend history of one ticker: ex-date, pay date, amount. Built on demand.',
    ticker: p.generalTicker,
    query: { limit: p.limit(200, 20) },
    onDemand: true,
    cacheClass: 'filings',
    indexesSupported: false,
  },
  {
    operationId: 'market.correlations',
    path: '/v1/market/correlations',
    title: 'Return correlations',
    description: 'Pairwise daily-return correlations across 2 to 10 tickers. Built on demand.',
    query: {
      tickers: p.tickerList,
      lookback_days: z.coerce.number().int().min(20).max(252).describe('Trading days of returns, 20 to 252 (default 60).').optional(),
    },
    onDemand: true,
    cacheClass: 'daily',
  },
  {
    operationId: 'macro.forex_rate',
    path: '/v1/macro/forex-rate',
    title: 'FX spot rate',
    description: 'Current FX spot rate of one currency pair. Built on demand.',
    query: { pair: p.currencyPair },
    onDemand: true,
    cacheClass: 'intraday',
  },
];

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
