/**
 * Where a request goes and under which key it is cached: one place, so that a call and
 * its cache key never disagree.
 */
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import { upstreamQuery } from '../catalog/upstream-names.js';
import { CACHE_TTL_MS } from './cache.js';
import { ApiError } from './errors.js';
import { immutableForMs } from './immutable-answers.js';

/** A dataset with validated parameters, or a meta endpoint. */
export interface RequestTarget {
  operationId: string;
  path: `/v1/${string}`;
  ticker?: string | undefined;
  query: QueryValues;
  cacheTtlMs: number;
  /** How much longer than `cacheTtlMs` an answer may be kept, by its content: one that can no longer change (immutable-answers.ts). */
  keepFor?: ((data: unknown, now: number) => number | undefined) | undefined;
  /** Key under which SERVICE_DISABLED is remembered. */
  capability: string;
  /** discover, health, openapi.json: free of quota, so the quota latch lets them through. */
  free?: boolean | undefined;
}

/** What a dataset call asks of the API. */
export function datasetTarget(dataset: DatasetDefinition, ticker: string | undefined, query: QueryValues): RequestTarget {
  // Sent under the upstream's own names (its document may say `pageSize` for our `limit`).
  const sent = upstreamQuery(dataset, query);
  return {
    operationId: dataset.operationId,
    path: dataset.path,
    ticker,
    query: sent,
    cacheTtlMs: CACHE_TTL_MS[dataset.cacheClass],
    keepFor: (data, now) => immutableForMs(dataset, sent, data, now),
    capability: dataset.capability ?? dataset.operationId,
  };
}

/** A free meta endpoint, cached for `cacheTtlMs` (0: not cached). */
export function metaTarget(path: '/v1/discover' | '/v1/health' | '/v1/openapi.json', cacheTtlMs: number): RequestTarget {
  return {
    operationId: `meta.${path.slice(4).replace('.json', '')}`,
    path,
    query: {},
    cacheTtlMs,
    capability: path,
    free: true,
  };
}

/** The path with its ticker encoded; nothing that could become a `.`/`..` segment survives. */
export function buildPath(target: RequestTarget): string {
  if (!target.path.includes('{ticker}')) return target.path;
  const ticker = target.ticker ?? '';
  if (ticker === '' || ticker === '.' || ticker === '..' || ticker.includes('/')) {
    throw new ApiError({ code: 'TICKER_INVALID', status: null, message: 'The ticker is missing or not a path segment.', local: true });
  }
  return target.path.replace('{ticker}', encodeURIComponent(ticker));
}
