/**
 * Rows of a dataset generated for its document: what a row schema is inferred from. Drawn at
 * a fixed instant for a few symbols, so that the document is the same at every hour.
 */
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import { latestSession } from '../catalog/market-calendar.js';
import { DEALER_PATH, largestPage } from './dialect-lists.js';
import { catalogGenerator, DatasetRefusal, isCatalogOperation, runtimeDatasetGenerator, type Row } from './generators/index.js';
import { applyQueryFilters } from './query-filters.js';
import { referenceSymbol } from './reference.js';

/** A Wednesday afternoon in a session, with three full sessions before it. */
const SAMPLE_AT = Date.parse('2026-11-18T19:00:00Z');
/** What each dataset needs to answer at all, and a batch where it takes one (a ticker it does not cover adds an error row). */
const EXAMPLE_QUERIES: Readonly<Record<string, QueryValues>> = {
  'options.chain_history': { expiration: '2026-12-18', right: 'C' },
  'stocks.sector_tickers': { sector: 'Technology' },
  'market.correlations': { tickers: 'SPY,QQQ,AAPL' },
  'macro.forex_rate': { pair: 'EURUSD' },
  'volatility.anomaly': { with_tickers: 'MSFT,NVDA,ZZZZ' },
};

const samples = new WeakMap<DatasetDefinition, Row[]>();

/** Sample rows of a dataset (one object counts as a row), in our names and values; drawn once per dataset. */
export function sampleRows(dataset: DatasetDefinition, seed: number): Row[] {
  const known = samples.get(dataset);
  if (known) return known;
  const rows = drawSamples(dataset, seed);
  samples.set(dataset, rows);
  return rows;
}

function drawSamples(dataset: DatasetDefinition, seed: number): Row[] {
  const generate = isCatalogOperation(dataset.operationId) ? catalogGenerator(dataset.operationId) : runtimeDatasetGenerator;
  const largest = largestPage(dataset);
  const base = Object.hasOwn(EXAMPLE_QUERIES, dataset.operationId) ? EXAMPLE_QUERIES[dataset.operationId] : undefined;
  const queries: QueryValues[] = [{ ...(base ?? {}), ...(largest === undefined ? {} : { limit: Math.min(largest, 200) }) }];
  if (dataset.operationId === 'volatility.anomaly') queries.push({});
  const symbols = dataset.ticker ? (dataset.path === DEALER_PATH ? ['SPY', 'NVDA'] : ['AAPL', 'SPY', 'GME']) : [undefined];
  const rows: Row[] = [];
  for (const ticker of symbols)
    for (const query of queries) {
      const symbol = ticker === undefined ? undefined : referenceSymbol(ticker);
      try {
        const ctx = { seed, now: SAMPLE_AT, session: latestSession(SAMPLE_AT), symbol, query };
        const data = applyQueryFilters(dataset.operationId, ctx, generate).data;
        rows.push(...(Array.isArray(data) ? data : [data]));
      } catch (error) {
        // A symbol the dataset refuses (an index where it takes none) has no rows to show.
        if (!(error instanceof DatasetRefusal)) throw error;
      }
    }
  return rows;
}
