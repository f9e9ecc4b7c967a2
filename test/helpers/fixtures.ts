/** Shared test fixtures: tickers the simulator covers, and a dataset the catalog does not know. */
import * as z from 'zod';
import { generalTicker, type DatasetDefinition } from '../../src/catalog/index.js';

/** Twenty covered tickers, for calls that must be distinct. */
export const TICKERS: readonly string[] = [
  'SPY',
  'QQQ',
  'IWM',
  'AAPL',
  'MSFT',
  'NVDA',
  'AMD',
  'TSLA',
  'AMZN',
  'META',
  'GOOGL',
  'GME',
  'AMC',
  'JPM',
  'XOM',
  'CVX',
  'JNJ',
  'UNH',
  'PG',
  'KO',
];

/** A dataset the catalog does not know, as if registered upstream later. */
export const ETF_FLOWS: DatasetDefinition = {
  operationId: 'etf.flows_by_ticker',
  path: '/v1/etf/flows-by-ticker/{ticker}',
  title: 'ETF flows',
  description: 'Daily creations and redemptions of one ETF.',
  ticker: generalTicker,
  query: { days: z.coerce.number().int().min(1).max(90).describe('Days of history, 1 to 90.').optional() },
  onDemand: false,
  cacheClass: 'daily',
};
