/**
 * Where a request goes and under which key it is cached: one place, so that a call and
 * its cache key never disagree.
 */
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import type { DatasetQuery } from './dataset-query.js';
import { upstreamQuery } from '../catalog/upstream-names.js';
import { CACHE_TTL_MS } from './cache.js';
import { apiError } from './errors.js';
import { immutableForMs } from './immutable-answers.js';

/** A query as it goes on the wire: a list parameter the document explodes is one pair per value. */
export type WireQuery = Readonly<Record<string, string | number | readonly string[]>>;

/** A dataset with validated parameters, or a meta endpoint. */
export interface RequestTarget {
  operationId: string;
  /** Path variables other than the ticker already in place. */
  path: `/v1/${string}`;
  ticker?: string | undefined;
  query: WireQuery;
  cacheTtlMs: number;
  /** How much longer than `cacheTtlMs` an answer may be kept, by its content: one that can no longer change (immutable-answers.ts). */
  keepFor?: ((data: unknown, now: number) => number | undefined) | undefined;
  /** Key under which SERVICE_DISABLED is remembered. */
  capability: string;
  /** discover, health, openapi.json: free of quota, so the quota latch lets them through. */
  free?: boolean | undefined;
  /**
   * openapi.json: its one reader cleans every text it passes on (src/registry/openapi/
   * document-source.ts cleans each operation it reads, the disk copy and the
   * market-data://openapi.json resource are cleaned whole), so the answer is not cleaned
   * here: a walk of every string of a document of 500 datasets, most never read.
   */
  readerCleans?: boolean | undefined;
  /** The field the document's rows name the ticker in, where not `ticker` (`symbol`): rows keyed by ticker get theirs under it. */
  tickerField?: string | undefined;
}

/** A rows' ticker field named otherwise than `ticker` in the document's response schema. */
const OTHER_TICKER_FIELDS = /^(symbol|ticker_?symbol)$/i;

function tickerFieldOf(dataset: DatasetDefinition): string | undefined {
  const fields = dataset.responseFields;
  if (!fields || fields.includes('ticker')) return undefined;
  return fields.find((field) => OTHER_TICKER_FIELDS.test(field));
}

/** What a dataset call asks of the API. */
export function datasetTarget(asked: DatasetQuery): RequestTarget {
  const { dataset, ticker, values: query, roles } = asked;
  const inPath = new Set(dataset.pathParams ?? []);
  let path: string = dataset.path;
  for (const name of inPath) path = path.split(`{${name}}`).join(pathSegment(query[name]));
  const rest = inPath.size === 0 ? query : Object.fromEntries(Object.entries(query).filter(([name]) => !inPath.has(name)));
  // Sent under the upstream's own names (its document may say `pageSize` for our `limit`), lists in its style.
  const sent = upstreamQuery(dataset, listsInStyle(dataset, rest));
  return {
    operationId: dataset.operationId,
    path: path as `/v1/${string}`,
    ticker,
    query: sent,
    cacheTtlMs: CACHE_TTL_MS[dataset.cacheClass],
    keepFor: (data, now) => immutableForMs(dataset, roles, sent, data, now),
    capability: dataset.capability ?? dataset.operationId,
    ...(tickerFieldOf(dataset) ? { tickerField: tickerFieldOf(dataset) } : {}),
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
    ...(path === '/v1/openapi.json' ? { readerCleans: true } : {}),
  };
}

/** A list parameter's comma-joined values in the form the document gives: one pair per value, or joined by its delimiter. */
function listsInStyle(dataset: DatasetDefinition, query: QueryValues): Record<string, string | number | readonly string[]> {
  const forms = dataset.wireForms;
  if (!forms) return query;
  const out: Record<string, string | number | readonly string[]> = { ...query };
  for (const [name, form] of Object.entries(forms)) {
    const value = query[name];
    if (typeof value !== 'string') continue;
    const values = value.split(',');
    out[name] = form.explode ? values : values.join(form.delimiter);
  }
  return out;
}

/** One path variable's value, encoded; nothing that could become a `.`/`..` segment or another segment survives. */
function pathSegment(value: string | number | undefined): string {
  const text = value === undefined ? '' : String(value);
  if (text === '' || text === '.' || text === '..' || text.includes('/')) {
    throw apiError('VALIDATION_ERROR', { status: null, message: 'A path parameter is missing or not a path segment.', local: true });
  }
  return encodeURIComponent(text);
}

/** The path with its ticker encoded; nothing that could become a `.`/`..` segment survives. */
export function buildPath(target: RequestTarget): string {
  if (!target.path.includes('{ticker}')) return target.path;
  const ticker = target.ticker ?? '';
  if (ticker === '' || ticker === '.' || ticker === '..' || ticker.includes('/')) {
    throw apiError('TICKER_INVALID', { status: null, message: 'The ticker is missing or not a path segment.', local: true });
  }
  return target.path.replace('{ticker}', encodeURIComponent(ticker));
}
