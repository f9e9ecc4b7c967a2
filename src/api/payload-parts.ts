/**
 * Where an answer keeps its rows and its metadata. The spec shows `{data, _meta}` for one
 * endpoint and leaves the rest open, so a real upstream may answer `{status, request_id,
 * count, results, next_url}`, `{records, total_count}`, `{data: {rows}}`, objects keyed by
 * ticker or a bare array. The rows are found by a rule, not by a list of wrapper names:
 *
 * - an array of records is rows;
 * - an object whose one array of records stands beside nothing but metadata (scalars, and
 *   objects named as metadata: `_meta`, `meta`, `pagination`, `paging`, `links`, `cursors`...)
 *   is a wrapper of those rows, at any depth (`{data: {rows}}`);
 * - an object whose keys are all tickers and whose values are records or lists of records
 *   is rows, each with its ticker put in (the row's own ticker, when it has one, is kept);
 * - anything else is the payload itself (one record, or data with several parts), less its
 *   metadata objects.
 *
 * Every reader of an answer (the client, the result shaper, the local reader, the dealer
 * history, volatility_compare) asks here, so one rule holds for all of them. The metadata
 * found on the way is handed to paging-evidence.ts, which reads the next page from it.
 */

import { pagingEvidence, type PagingEvidence } from './paging-evidence.js';

type Json = Record<string, unknown>;

/** One metadata value found in an answer, with the names of the objects it sits in (folded). */
export interface MetaEntry {
  /** Folded names of the enclosing metadata objects, outermost first (`['meta', 'pagination']`). */
  within: readonly string[];
  /** Folded key. */
  key: string;
  /** The key as the answer spells it. */
  name: string;
  value: unknown;
}

export interface PayloadParts {
  /** The payload: the rows where the answer holds rows, otherwise the body less its metadata. */
  data: unknown;
  /** The rows, when the answer holds a list of them (possibly empty). */
  rows: unknown[] | undefined;
  /** The metadata as one flat object, the first of a name found winning (`_meta` before scalars beside the rows). */
  meta: Json;
  /** Every metadata value found, where it was. */
  entries: MetaEntry[];
  /** What the answer says of the pages after it (paging-evidence.ts). */
  paging: PagingEvidence;
  /** The next page's token, where the answer gives one (what a reader of the upstream's pages follows). */
  nextCursor: string | undefined;
}

/** `next_page_token`, `nextPageToken`, `next-page-token` → `nextpagetoken`. */
export const fold = (name: string): string => name.toLowerCase().replace(/[-_.]/g, '');

/** Objects that hold metadata, whatever else stands beside them (folded names). */
const META_OBJECTS = new Set([
  'meta',
  'metadata',
  'responsemetadata',
  'pagination',
  'paging',
  'pageinfo',
  'links',
  'cursors',
  'cursor',
  'page',
  'next',
  'previous',
  'prev',
]);
/**
 * Scalars beside rows that speak of the answer, not of the data (folded): request ids, status,
 * counts, paging. Any other scalar beside rows (`period`, `ticker`, `as_of`) is context the
 * agent keeps: the payload then stays the wrapper, its rows found inside it.
 */
const META_SCALARS = new Set([
  'status',
  'requestid',
  'traceid',
  'success',
  'ok',
  'object',
  'kind',
  'took',
  'count',
  'resultscount',
  'resultcount',
  'querycount',
  'itemcount',
  'returned',
  'version',
  'apiversion',
  'notice',
  'message',
  'etag',
  'cursor',
  'after',
  'before',
  'limit',
  'offset',
  'skip',
  'more',
  'truncated',
  'continuation',
  'continuationtoken',
  'datafreshnessseconds',
  'cachehit',
  'ratelimitremaining',
  'quotaremainingpct',
  'datasource',
  'perpage',
  'numpages',
  'numresults',
]);
const META_SCALAR_PREFIX = /^(next|prev|previous|has|total|page)/;
/** Names that only wrap the payload (folded): one record under one of them, beside metadata alone, is the payload. */
const WRAPPER_NAMES = new Set(['data', 'result', 'results', 'item', 'items', 'record', 'records', 'payload', 'body', 'response', 'value']);

const isMetaScalar = (name: string): boolean => {
  const key = fold(name);
  return META_SCALARS.has(key) || META_SCALAR_PREFIX.test(key);
};

/** Metadata objects read deeper than this are not read (a payload is not metadata). */
const META_DEPTH = 3;
/** Items of an array looked at to tell rows (records) from a list of values. */
const SAMPLE = 1000;

const TICKER_KEY = /^[A-Z][A-Z0-9]{0,9}([.-][A-Z0-9]{1,4})?$/;
const TICKER_FIELDS = ['ticker', 'symbol'];

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** An array of records (or an empty one): rows, as opposed to a list of values or of pairs. */
function isRowList(value: unknown): value is unknown[] {
  if (!Array.isArray(value)) return false;
  const end = Math.min(value.length, SAMPLE);
  for (let i = 0; i < end; i += 1) if (!isRecord(value[i])) return false;
  return true;
}

/**
 * Objects keyed by ticker (`{AAPL: {...}, MSFT: {...}}`, or lists per ticker) as rows with the
 * ticker put in, under `field`: the name the document's rows give it (`symbol`), else `ticker`.
 */
function tickerRows(node: Json, field: string): unknown[] | undefined {
  const keys = Object.keys(node);
  if (keys.length === 0 || !keys.every((k) => TICKER_KEY.test(k))) return undefined;
  if (!keys.every((k) => isRecord(node[k]) || (isRowList(node[k]) && node[k].length > 0))) return undefined;
  const withTicker = (ticker: string, row: unknown): unknown =>
    isRecord(row) && ![...TICKER_FIELDS, field].some((f) => typeof row[f] === 'string') ? { [field]: ticker, ...row } : row;
  return keys.flatMap((k) => {
    const value = node[k];
    return Array.isArray(value) ? value.map((row) => withTicker(k, row)) : [withTicker(k, value)];
  });
}

/** Reads a metadata object into `entries`, nested metadata objects too (`meta.pagination.next`). */
function collect(value: Json, within: readonly string[], entries: MetaEntry[]): void {
  for (const [key, item] of Object.entries(value)) {
    const folded = fold(key);
    if (isRecord(item)) {
      if (within.length < META_DEPTH) collect(item, [...within, folded], entries);
    } else if (isScalar(item)) entries.push({ within, key: folded, name: key, value: item });
  }
}

function besideRows(scalars: readonly [string, unknown][], entries: MetaEntry[]): void {
  for (const [name, value] of scalars) entries.push({ within: [], key: fold(name), name, value });
}

interface Found {
  data: unknown;
  rows: unknown[] | undefined;
}

/** The rows or payload of `node`; metadata met on the way goes into `entries` and `metaObjects`. */
function unwrap(node: unknown, entries: MetaEntry[], metaObjects: Json[], depth: number, tickerField: string): Found {
  if (Array.isArray(node)) return { data: node, rows: isRowList(node) ? node : undefined };
  if (!isRecord(node)) return { data: node, rows: undefined };
  const rest: [string, unknown][] = [];
  for (const [key, value] of Object.entries(node)) {
    const folded = fold(key);
    // An upper-case key is a ticker (META, NEXT), never the metadata object its letters spell.
    if (isRecord(value) && META_OBJECTS.has(folded) && !TICKER_KEY.test(key)) {
      metaObjects.push(value);
      collect(value, [folded], entries);
    } else rest.push([key, value]);
  }
  const body = rest.length === Object.keys(node).length ? node : Object.fromEntries(rest);
  const byTicker = tickerRows(body, tickerField);
  if (byTicker) return { data: byTicker, rows: byTicker };
  const lists = rest.filter(([, value]) => Array.isArray(value));
  const records = rest.filter(([, value]) => isRecord(value));
  const scalars = rest.filter(([, value]) => isScalar(value));
  // One list of rows beside nothing but scalars: a wrapper, its scalars metadata.
  const only = lists.length === 1 && records.length === 0 ? lists[0] : undefined;
  if (only && isRowList(only[1])) {
    const context = scalars.filter(([name]) => !isMetaScalar(name));
    besideRows(
      scalars.filter(([name]) => isMetaScalar(name)),
      entries,
    );
    // Context beside the rows stays with them (`{period, rows}`): the rows are still found there.
    return { data: context.length === 0 ? only[1] : Object.fromEntries([...context, only]), rows: only[1] };
  }
  // One object beside nothing but scalars (`{data: {...}, status}`): whatever it holds, its scalars metadata.
  const inner = records.length === 1 && lists.length === 0 ? records[0] : undefined;
  if (inner && depth < META_DEPTH) {
    const found = unwrap(inner[1], entries, metaObjects, depth + 1, tickerField);
    // A record that holds no rows is the payload under a name that only wraps (`{data: {...}, _meta}`,
    // `{results: {...}, meta}`) with nothing but metadata beside it; elsewhere its name and the scalars
    // beside it are part of the payload (`{pair, rate: {...}}`, `{error: {...}}`).
    const wrapped = WRAPPER_NAMES.has(fold(inner[0])) && scalars.every(([name]) => isMetaScalar(name));
    if (found.rows !== undefined || wrapped) {
      besideRows(scalars, entries);
      return found;
    }
  }
  return { data: body, rows: undefined };
}

/**
 * The parts of an answer's body; `linkHeader` is its `Link` header, where the API pages by it;
 * `tickerField` what rows keyed by ticker name it, where the document names it otherwise (`symbol`).
 */
export function payloadParts(body: unknown, linkHeader?: string, tickerField = 'ticker'): PayloadParts {
  const entries: MetaEntry[] = [];
  const metaObjects: Json[] = [];
  const found = unwrap(body, entries, metaObjects, 0, tickerField);
  const meta: Json = {};
  // The metadata objects first (`_meta.request_id` over a `request_id` beside the rows), then scalars beside rows.
  for (const object of metaObjects) for (const [key, value] of Object.entries(object)) if (!(key in meta)) meta[key] = value;
  for (const entry of entries) if (entry.within.length === 0 && !(entry.name in meta)) meta[entry.name] = entry.value;
  const paging = pagingEvidence(entries, linkHeader, found.rows?.length);
  return { data: found.data, rows: found.rows, meta, entries, paging, nextCursor: paging.token };
}

/** The rows of a payload already taken apart (or of any body): a list of records, wherever the rule above finds one. */
export function rowsIn(data: unknown): unknown[] | undefined {
  return payloadParts(data).rows;
}

/**
 * A payload taken apart here with its rows replaced, the context beside them kept: rows
 * gathered over several pages answer as `{period, rows}` when the first page did, not as
 * bare rows that lost `period`.
 */
export function withRows(data: unknown, rows: unknown[]): unknown {
  const found = rowsIn(data);
  if (found === undefined || found === data || !isRecord(data)) return rows;
  const key = Object.keys(data).find((name) => data[name] === found);
  return key === undefined ? rows : { ...data, [key]: rows };
}
