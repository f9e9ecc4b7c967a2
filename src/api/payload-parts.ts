/**
 * Where an answer keeps its rows, its metadata and its next cursor. The spec shows
 * `{data, _meta}` with `_meta.next_cursor` for one endpoint and leaves the rest open, so a
 * real upstream may answer `{results, meta}`, `{items, next}`, `{data: {rows}}` or a bare
 * array. Everything that reads an answer's parts asks here, so that one list of shapes
 * holds for the client, the result shaper and the dealer history alike. A shape not
 * recognised comes back whole.
 */

type Json = Record<string, unknown>;

/** Keys that sit beside the rows in a wrapper and say something about them, never rows themselves. */
const BESIDE_ROWS = new Set(['_meta', 'meta', 'next', 'next_cursor', 'links', 'count', 'total', 'page', 'pagination', 'has_more']);
/** Wrapper keys, in the order tried: `data` is the spec's and always unwrapped, as before. */
const ROW_KEYS = ['results', 'items'] as const;

export interface PayloadParts {
  /** The payload: rows where the wrapper held rows, otherwise the body less its metadata. */
  data: unknown;
  /** The answer's metadata object (`_meta` or `meta`), empty when it has none. */
  meta: Json;
  /** The cursor of the next page, wherever the answer put it. */
  nextCursor: string | undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyBesideRows(body: Json, key: string): boolean {
  return Object.keys(body).every((k) => k === key || BESIDE_ROWS.has(k));
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function payloadParts(body: unknown): PayloadParts {
  if (!isObject(body)) return { data: body, meta: {}, nextCursor: undefined };
  const metaKey = isObject(body['_meta']) ? '_meta' : isObject(body['meta']) ? 'meta' : undefined;
  const meta = metaKey ? (body[metaKey] as Json) : {};
  const pagination = isObject(body['pagination']) ? body['pagination'] : {};
  const nextCursor =
    text(meta['next_cursor']) ??
    text(meta['next']) ??
    text(body['next_cursor']) ??
    text(body['next']) ??
    text(pagination['next_cursor']) ??
    text(pagination['next']);
  let data: unknown;
  const rowKey = ROW_KEYS.find((k) => k in body && onlyBesideRows(body, k));
  if ('data' in body) data = body['data'];
  else if (rowKey) data = body[rowKey];
  else data = Object.fromEntries(Object.entries(body).filter(([k]) => k !== metaKey));
  // `{data: {rows: [...]}}`: the rows, when nothing but counts sits beside them.
  if (isObject(data) && Array.isArray(data['rows']) && onlyBesideRows(data, 'rows')) data = data['rows'];
  return { data, meta, nextCursor };
}

/** The rows of a payload already taken apart: the array itself, or the one list a small wrapper holds. */
export function rowsIn(data: unknown): unknown[] | undefined {
  if (Array.isArray(data)) return data as unknown[];
  if (!isObject(data)) return undefined;
  for (const key of ['rows', 'data', 'results', 'items']) {
    const rows: unknown = data[key];
    if (Array.isArray(rows) && onlyBesideRows(data, key)) return rows as unknown[];
  }
  return undefined;
}
