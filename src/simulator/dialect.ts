/**
 * Dialects of the spec: the same market served as other readings of what the spec leaves
 * open would serve it. The spec fixes paths, auth, errors and limits; it leaves operation
 * ids, query parameters and payload wrappers open (note C), so a real upstream may differ
 * from our choices on each. Each dialect here is modelled on what public OpenAPI documents
 * and data APIs commonly do:
 *
 * - `spec`: our own reading (dotted ids, `limit`/`cursor`, `{data, _meta}`).
 * - `camel`: generator-style ids (`getDerivedDealerGexHistory`), Google-style camelCase
 *   parameters (`pageSize`/`pageToken`, `startDate`/`endDate`, `sessionDate`, `symbols`),
 *   rows under `results` with `meta.next`.
 * - `vendor`: another dotted scheme (`marketdata.derived_dealer_gex_history`); every list
 *   pages at a fixed size behind a cursor, and takes no page size, ticker list, side or
 *   date range (the dealer history takes only the cursor); rows under `items` with a
 *   top-level `next`, and no rate-limit headers.
 * - `kebab`: kebab-case ids, Alpaca-style names (`symbols`, `start`/`end`, `date`), rows
 *   under `data.rows` with `meta.next_cursor`, plain lists as a bare JSON array.
 *
 * Chosen with MARKET_DATA_SIM_DIALECT or the simulator's `dialect` option.
 */
import { cursor as cursorSchema } from '../catalog/params.js';
import type { DatasetDefinition } from '../catalog/index.js';

export const DIALECT_NAMES = ['spec', 'camel', 'vendor', 'kebab'] as const;
/** The variable that picks the simulator's dialect. */
export const DIALECT_ENV = 'MARKET_DATA_SIM_DIALECT';
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
  /**
   * Every other dataset's parameters: our name → theirs; `null`: not offered. A dialect
   * that drops `limit` pages every list at `fixedPageSize` behind a `cursor` parameter.
   */
  readonly params: Readonly<Record<string, string | null>>;
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
    params: {},
    wrap: (data, meta, next) => ({ data, _meta: { ...meta, next_cursor: next } }),
    rateHeaders: true,
  },
  camel: {
    name: 'camel',
    operationId: (ours) =>
      `get${words(ours)
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join('')}`,
    dealerPaging: { limit: 'pageSize', cursor: 'pageToken' },
    fixedPageSize: undefined,
    params: { limit: 'pageSize', from: 'startDate', to: 'endDate', session_date: 'sessionDate', tickers: 'symbols' },
    wrap: (data, meta, next) => ({ results: data, meta: { ...meta, ...(next ? { next } : {}) } }),
    rateHeaders: true,
  },
  vendor: {
    name: 'vendor',
    operationId: (ours) => `marketdata.${words(ours).join('_')}`,
    dealerPaging: { limit: null, cursor: 'cursor' },
    fixedPageSize: 25,
    params: { limit: null, tickers: null, side: null, from: null, to: null },
    wrap: (data, meta, next) => ({ items: data, next: next ?? null, meta }),
    rateHeaders: false,
  },
  kebab: {
    name: 'kebab',
    operationId: (ours) => words(ours).join('-'),
    dealerPaging: { limit: 'limit', cursor: 'cursor' },
    fixedPageSize: undefined,
    params: { tickers: 'symbols', from: 'start', to: 'end', session_date: 'date' },
    // A whole list comes bare (nothing to say after it); a page or a cut list keeps its meta;
    // a single object (a score, a rate) is the data itself.
    wrap: (data, meta, next) =>
      !Array.isArray(data)
        ? { data, meta: { ...meta, next_cursor: next } }
        : !next && meta['truncated'] !== true
          ? data
          : { data: { rows: data }, meta: { ...meta, next_cursor: next } },
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
  return dialectNamed(env[DIALECT_ENV]);
}

/** Whether the dialect pages this dataset itself, at its fixed size behind a cursor (it takes no page size). */
export function pagesAtFixedSize(dataset: DatasetDefinition, dialect: Dialect): boolean {
  return (
    dataset.path !== DEALER_PATH &&
    dialect.params['limit'] === null &&
    Object.hasOwn(dataset.query, 'limit') &&
    !Object.hasOwn(dataset.query, 'cursor')
  );
}

/** A dataset as the dialect publishes it: our operation id kept (the generators key on it), parameters renamed or left out. */
export function publishedDataset(dataset: DatasetDefinition, dialect: Dialect): DatasetDefinition {
  if (dialect.name === 'spec') return dataset;
  if (dataset.path === DEALER_PATH) {
    const { limit, cursor, ...rest } = dataset.query;
    const query = { ...rest };
    if (dialect.dealerPaging.limit && limit) query[dialect.dealerPaging.limit] = limit;
    if (cursor) query[dialect.dealerPaging.cursor] = cursor;
    return { ...dataset, query };
  }
  const query: DatasetDefinition['query'] = {};
  for (const [name, schema] of Object.entries(dataset.query)) {
    // Only an optional filter is left out: a required input (the tickers of a correlation) is the question itself.
    // Own keys only: a parameter named like a prototype property (`constructor`) is not renamed.
    const theirs = Object.hasOwn(dialect.params, name) ? dialect.params[name] : name;
    if (theirs) query[theirs] = schema;
    else if (!schema.safeParse(undefined).success) query[name] = schema;
  }
  if (pagesAtFixedSize(dataset, dialect)) query['cursor'] = cursorSchema.optional();
  return { ...dataset, query };
}

/** The validated query of a request in the dialect, with our names back (what the generators read). */
export function ourQuery<T>(dataset: DatasetDefinition, dialect: Dialect, query: Record<string, T>): Record<string, T | number> {
  if (dialect.name === 'spec') return query;
  const out: Record<string, T | number> = {};
  if (dataset.path === DEALER_PATH) {
    for (const [name, value] of Object.entries(query)) {
      if (name === dialect.dealerPaging.limit) out['limit'] = value;
      else if (name === dialect.dealerPaging.cursor) out['cursor'] = value;
      else out[name] = value;
    }
    if (!dialect.dealerPaging.limit && dialect.fixedPageSize !== undefined) out['limit'] = dialect.fixedPageSize;
    return out;
  }
  const ours = new Map(Object.entries(dialect.params).flatMap(([mine, theirs]) => (theirs ? [[theirs, mine] as const] : [])));
  for (const [name, value] of Object.entries(query)) out[ours.get(name) ?? name] = value;
  return out;
}

/** The dealer history's raw page query in a dialect: what a test reading the upstream directly sends. */
export function dealerPageQuery(dialect: Dialect, cursor: string | undefined, size = 60): string {
  const params = new URLSearchParams();
  if (dialect.dealerPaging.limit) params.set(dialect.dealerPaging.limit, String(size));
  if (cursor) params.set(dialect.dealerPaging.cursor, cursor);
  return params.toString();
}
