/**
 * One generator per catalog operation id, keyed by the catalog's closed OperationId: a
 * dataset added to the catalog without its generator fails the type check here (and the
 * simulator's start-up check), instead of silently serving generic rows.
 * Datasets registered at run time (tests of a live catalog) get the generic generator,
 * and only they do.
 */
import type { OperationId } from '../../catalog/index.js';
import { round, seededRandom } from '../random.js';
import { limitOf, type Generator } from './context.js';
import { dealerGexHistory } from './dealer.js';
import { sectorTickers, tickerExchanges } from './directory.js';
import { congressRecentTrades, dividends, fundamentalBreakdown, insiderBuySells, ownershipByTicker } from './filings.js';
import { correlations, forexRate } from './macro.js';
import { chainHistory, flowOverview, oiChange, totalOptionsVolume } from './options.js';
import { darkpoolByTicker, litTradesRecent } from './prints.js';
import { shortScreener, volumeAndRatio, volumesByExchange } from './shorts.js';
import { characterTop, riskReversalSkew, volatilityAnomaly } from './volatility.js';

/** The catalog's closed list of ids: this module keys its generators by it. */
export type CatalogOperationId = OperationId;

const GENERATORS: { readonly [K in CatalogOperationId]: Generator } = {
  'flow.ticker_overview': flowOverview,
  'options.chain_history': chainHistory,
  'stocks.sector_tickers': sectorTickers,
  'derived.dealer_gex_history': dealerGexHistory,
  'market.total_options_volume': totalOptionsVolume,
  'stocks.ticker_exchanges': tickerExchanges,
  'shorts.short_screener': shortScreener,
  'congress.recent_trades': congressRecentTrades,
  'stocks.lit_trades_recent': litTradesRecent,
  'volatility.character_top': characterTop,
  'market.oi_change': oiChange,
  'fundamentals.fundamental_breakdown': fundamentalBreakdown,
  'institutions.ownership_by_ticker': ownershipByTicker,
  'insider.buy_sells_by_ticker': insiderBuySells,
  'volatility.risk_reversal_skew': riskReversalSkew,
  'shorts.volumes_by_exchange': volumesByExchange,
  'shorts.volume_and_ratio': volumeAndRatio,
  'volatility.anomaly': volatilityAnomaly,
  'darkpool.by_ticker': darkpoolByTicker,
  'stocks.dividends': dividends,
  'market.correlations': correlations,
  'macro.forex_rate': forexRate,
};

export function isCatalogOperation(operationId: string): operationId is CatalogOperationId {
  return Object.hasOwn(GENERATORS, operationId);
}

export function catalogGenerator(operationId: CatalogOperationId): Generator {
  return GENERATORS[operationId];
}

/** Rows for a dataset registered at run time, which the reference market knows nothing about. */
export const runtimeDatasetGenerator: Generator = (ctx) => {
  const random = seededRandom(ctx.seed, 'runtime-dataset', ctx.symbol?.ticker ?? '', ctx.session.date);
  return {
    data: Array.from({ length: Math.min(limitOf(ctx, 10), 100) }, (_, i) => ({
      row: i + 1,
      ticker: ctx.symbol?.ticker ?? null,
      value: round(random() * 100, 3),
    })),
    asOf: ctx.now,
  };
};

export type { Generated, Payload, Row } from './context.js';
export { DatasetRefusal } from './context.js';
