/** A dataset the catalog does not know, as if registered upstream later. */
import * as z from 'zod';
import { generalTicker, type DatasetDefinition } from '../../src/catalog/index.js';

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
