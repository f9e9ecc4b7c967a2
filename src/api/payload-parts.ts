/**
 * Where an answer keeps its rows and its metadata. The spec shows `{data, _meta}` for one
 * endpoint and leaves the rest open, so a real upstream may answer `{status, request_id,
 * count, results, next_url}`, `{records, total_count}`, `{data: {rows}}`, objects keyed by
 * ticker or a bare array. The rows are found by a rule, not by a list of wrapper names:
 *
 * - an array of records is rows;
 * - an object whose one array of records stands beside nothing but scalars and metadata
 *   objects (`_meta`, `meta`, `pagination`, `paging`, `links`, `cursors`...) is a page of those
 *   rows, at any depth (`{data: {rows}}`): scalars that speak of the answer or its paging are
 *   metadata, any other (`period`, `symbol`) context kept beside the rows;
 * - an object whose keys are all tickers and whose values are records or lists of records
 *   is rows, each with its ticker put in (the row's own ticker, when it has one, is kept);
 * - anything else is the payload itself (one record, or data with several parts), less its
 *   metadata objects;
 * - JSON:API resources (`{id, type, attributes}`) are read as rows of their id and attributes
 *   (json-api-rows.ts).
 *
 * Every reader of an answer (the client, the result shaper, the local reader, the dealer
 * history, volatility_compare) asks here, so one rule holds for all of them. The metadata
 * found on the way is handed to paging-evidence.ts, which reads the next page from it.
 */

import { isJsonApiResource, jsonApiRows, resourceRow } from './json-api-rows.js';
import { PAGING_SCALARS, pagingEvidence, rowIdOf, type PagingEvidence, type PagingHeaders } from './paging-evidence.js';

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
 * Scalars that speak of the answer, not of the data (folded): request ids, status, counts,
 * paging (beside every name paging-evidence.ts reads). Beside one record under a name that only wraps (`{data: {...}, status}`) they say
 * the record is the payload; any other scalar there (`{pair, rate: {...}}`) is part of it.
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
  'size',
  'url',
  'self',
  'href',
  'numpages',
  'numresults',
]);
const META_SCALAR_PREFIX = /^(next|prev|previous|has|total|page)/;
/** Names that only wrap the payload (folded): one record under one of them, beside metadata alone, is the payload. */
const WRAPPER_NAMES = new Set(['data', 'result', 'results', 'item', 'items', 'record', 'records', 'payload', 'body', 'response', 'value']);

const isMetaScalar = (name: string): boolean => {
  const key = fold(name);
  return META_SCALARS.has(key) || PAGING_SCALARS.has(key) || META_SCALAR_PREFIX.test(key);
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
  // One list of rows beside scalars: the scalars that speak of the answer or its paging (a
  // total, a page and its size, a count, a request id) are metadata; any other (`period`,
  // `symbol`, `as_of`) is context the agent keeps, the payload then `{context, rows}` with its
  // rows found inside it (`{items, period, next}`, a snapshot `{ticker, spot, strikes}`).
  const only = lists.length === 1 && records.length === 0 ? lists[0] : undefined;
  if (only && isRowList(only[1])) {
    const paging = scalars.filter(([name]) => isMetaScalar(name));
    besideRows(paging, entries);
    if (paging.length === scalars.length) return { data: only[1], rows: only[1] };
    return { data: Object.fromEntries(rest.filter(([name, value]) => value === only[1] || !isMetaScalar(name))), rows: only[1] };
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

/** JSON:API resources (json-api-rows.ts) as rows: the id and attributes side by side, where fields and filters find them. */
function jsonApiRead(found: Found): Found {
  if (found.rows !== undefined) {
    const rows = jsonApiRows(found.rows);
    return rows ? { data: rows, rows } : found;
  }
  return isJsonApiResource(found.data) ? { data: resourceRow(found.data), rows: undefined } : found;
}

/**
 * The parts of an answer's body; `headers` its paging headers (`Link`, a total), or its `Link`
 * header alone; `tickerField` what rows keyed by ticker name it, where the document names it
 * otherwise (`symbol`).
 */
export function payloadParts(body: unknown, headers?: PagingHeaders | string, tickerField = 'ticker'): PayloadParts {
  const entries: MetaEntry[] = [];
  const metaObjects: Json[] = [];
  const found = jsonApiRead(unwrap(body, entries, metaObjects, 0, tickerField));
  const meta: Json = {};
  // The metadata objects first (`_meta.request_id` over a `request_id` beside the rows), then scalars beside rows.
  for (const object of metaObjects) for (const [key, value] of Object.entries(object)) if (!(key in meta)) meta[key] = value;
  for (const entry of entries) if (entry.within.length === 0 && !(entry.name in meta)) meta[entry.name] = entry.value;
  const paging = pagingEvidence(entries, headers, found.rows?.length, rowIdOf(found.rows?.at(-1)));
  return { data: found.data, rows: found.rows, meta, entries, paging, nextCursor: paging.token };
}

/** The rows of a payload already taken apart (or of any body): a list of records, wherever the rule above finds one. */
export function rowsIn(data: unknown): unknown[] | undefined {
  return payloadParts(data).rows;
}

/** A payload's rows and how to put others in their place, keeping what stands beside them (`{period, rows}`). */
export interface RowsPlace {
  rows: unknown[];
  wrap: (rows: unknown[]) => unknown;
}

/**
 * Where a payload (what payloadParts gave as `data`) holds its rows: the payload itself, or
 * the one list inside it the rule above finds, put back under its own name with the context
 * beside it kept. Rows made by reading (tickers as keys, JSON:API resources) replace the payload.
 */
export function rowsPlace(data: unknown): RowsPlace | undefined {
  if (Array.isArray(data)) return { rows: data, wrap: (rows) => rows };
  const rows = rowsIn(data);
  if (!rows) return undefined;
  const name = isRecord(data) ? Object.keys(data).find((key) => data[key] === rows) : undefined;
  if (name === undefined || !isRecord(data)) return { rows, wrap: (kept) => kept };
  return { rows, wrap: (kept) => ({ ...data, [name]: kept }) };
}
