/**
 * Dialects of the spec: the same market served as other readings of what the spec leaves
 * open would serve it. The spec fixes paths, auth, errors and limits; it leaves operation
 * ids, query parameters and payload wrappers open (note C), so a real upstream may differ
 * from our choices on each. Each dialect here is modelled on what public OpenAPI documents
 * and data APIs commonly do:
 *
 * - `spec`: our own reading (dotted ids, `limit`/`cursor`, `{data, _meta}`).
 * - `camel`: generator-style ids (`getDerivedDealerGexHistory`), Google-style paging
 *   (`page_size`/`page_token`), rows under `results` with `meta.next`.
 * - `vendor`: another dotted scheme (`marketdata.derived_dealer_gex_history`), a dealer
 *   history that takes only a cursor and pages at a fixed size, rows under `items` with a
 *   top-level `next`, and no rate-limit headers.
 * - `kebab`: kebab-case ids, rows under `data.rows` with `meta.next_cursor`, plain lists
 *   as a bare JSON array.
 *
 * Chosen with MARKET_DATA_SIM_DIALECT or the simulator's `dialect` option.
 */
import type { DatasetDefinition } from '../catalog/index.js';

export const DIALECT_NAMES = ['spec', 'camel', 'vendor', 'kebab'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

/** The dealer history's paging parameters in a dialect: our name → theirs; `null`: not offered. */
interface PagingNames {
  limit: string | null;
  cursor: string;
}

export interface Dialect {
  readonly name: DialectName;
  operationId(ours: string): string;
  /** Paging parameters of the dealer history (the one dataset whose paging the spec fixes). */
  readonly dealerPaging: PagingNames;
  /** Page size when the dialect offers no page-size parameter. */
  readonly fixedPageSize: number | undefined;
  /** The 200 body around the rows, the metadata and the next cursor. */
  wrap(data: unknown, meta: Record<string, unknown>, nextCursor: string | null): unknown;
  readonly rateHeaders: boolean;
}

const DEALER_PATH = '/v1/derived/dealer-gex/{ticker}/history';

function words(ours: string): string[] {
  return ours.split(/[._-]/).filter(Boolean);
}

const DIALECTS: Record<DialectName, Dialect> = {
  spec: {
    name: 'spec',
    operationId: (ours) => ours,
    dealerPaging: { limit: 'limit', cursor: 'cursor' },
    fixedPageSize: undefined,
    wrap: (data, meta, next) => ({ data, _meta: { ...meta, next_cursor: next } }),
    rateHeaders: true,
  },
  camel: {
    name: 'camel',
    operationId: (ours) =>
      `get${words(ours)
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join('')}`,
    dealerPaging: { limit: 'page_size', cursor: 'page_token' },
    fixedPageSize: undefined,
    wrap: (data, meta, next) => ({ results: data, meta: { ...meta, ...(next ? { next } : {}) } }),
    rateHeaders: true,
  },
  vendor: {
    name: 'vendor',
    operationId: (ours) => `marketdata.${words(ours).join('_')}`,
    dealerPaging: { limit: null, cursor: 'cursor' },
    fixedPageSize: 25,
    wrap: (data, meta, next) => ({ items: data, next: next ?? null, meta }),
    rateHeaders: false,
  },
  kebab: {
    name: 'kebab',
    operationId: (ours) => words(ours).join('-'),
    dealerPaging: { limit: 'limit', cursor: 'cursor' },
    fixedPageSize: undefined,
    // A whole list comes bare (nothing to say after it); a page or a cut list keeps its meta.
    wrap: (data, meta, next) =>
      Array.isArray(data) && !next && meta['truncated'] !== true ? data : { data: { rows: data }, meta: { ...meta, next_cursor: next } },
    rateHeaders: true,
  },
};

export function dialectNamed(name: string | undefined): Dialect {
  if (name === undefined || name === '') return DIALECTS.spec;
  if (!(DIALECT_NAMES as readonly string[]).includes(name))
    throw new Error(`Unknown simulator dialect "${name}"; one of ${DIALECT_NAMES.join(', ')}.`);
  return DIALECTS[name as DialectName];
}

/** The dialect MARKET_DATA_SIM_DIALECT names (the spec's own when unset). */
export function dialectFromEnv(env: NodeJS.ProcessEnv = process.env): Dialect {
  return dialectNamed(env['MARKET_DATA_SIM_DIALECT']);
}

/** A dataset as the dialect publishes it: our operation id kept (the generators key on it), parameters renamed. */
export function publishedDataset(dataset: DatasetDefinition, dialect: Dialect): DatasetDefinition {
  if (dataset.path !== DEALER_PATH || dialect.name === 'spec') return dataset;
  const { limit, cursor, ...rest } = dataset.query;
  const query = { ...rest };
  if (dialect.dealerPaging.limit && limit) query[dialect.dealerPaging.limit] = limit;
  if (cursor) query[dialect.dealerPaging.cursor] = cursor;
  return { ...dataset, query };
}

/** The validated query of a request in the dialect, with our names back (what the generators read). */
export function ourQuery<T>(dataset: DatasetDefinition, dialect: Dialect, query: Record<string, T>): Record<string, T | number> {
  if (dataset.path !== DEALER_PATH || dialect.name === 'spec') return query;
  const out: Record<string, T | number> = {};
  for (const [name, value] of Object.entries(query)) {
    if (name === dialect.dealerPaging.limit) out['limit'] = value;
    else if (name === dialect.dealerPaging.cursor) out['cursor'] = value;
    else out[name] = value;
  }
  if (!dialect.dealerPaging.limit && dialect.fixedPageSize !== undefined) out['limit'] = dialect.fixedPageSize;
  return out;
}

/** The dealer history's raw page query in a dialect: what a test reading the upstream directly sends. */
export function dealerPageQuery(dialect: Dialect, cursor: string | undefined, size = 60): string {
  const params = new URLSearchParams();
  if (dialect.dealerPaging.limit) params.set(dialect.dealerPaging.limit, String(size));
  if (cursor) params.set(dialect.dealerPaging.cursor, cursor);
  return params.toString();
}
