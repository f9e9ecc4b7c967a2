/**
 * A dataset's 200 response as a described dialect documents it, FastAPI-style: the wrapper
 * with its metadata, the token, total or `next_url` its paging answers with, a `Link`
 * header where it pages by one, and the rows as a named schema inferred from generated rows
 * in the dialect's names, values and number encoding. The dealer history's rows are the
 * spec's snapshot, in the dialect's values and encoding. Nullable fields are written as 3.1
 * type arrays; a 3.0 dialect's document is converted whole (openapi-30.ts).
 */
import { dealerSnapshot, paramJsonSchema } from '../catalog/index.js';
import { isNamedDialect, type Dialect, type Paging, type RowWrapper } from './dialect.js';
import { carriesFlag, keyedByTicker, metaKeyOf, shapePayload, tokenLocation, wrapperOf, type TokenLocation } from './dialect-body.js';
import { answersList, DEALER_PATH } from './dialect-lists.js';
import { pascal, type Publication } from './dialect-params.js';
import { sampleRows } from './dialect-samples.js';

type Json = Record<string, unknown>;

interface SchemaBook {
  readonly schemas: Record<string, Json>;
  add(bucket: Record<string, Json>, name: string, value: Json): string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A lenient schema of the values seen: their types (null where seen), properties and items; nothing required. */
export function inferSchema(values: readonly unknown[]): Json {
  const types = new Set(values.map(typeOf));
  const nullable = types.delete('null');
  const variants: Json[] = [];
  for (const type of types) {
    const same = values.filter((v) => typeOf(v) === type);
    if (type === 'object') {
      const keys = [...new Set(same.flatMap((v) => Object.keys(v as Json)))];
      const properties = Object.fromEntries(
        keys.map((k) => [k, inferSchema(same.flatMap((v) => (Object.hasOwn(v as Json, k) ? [(v as Json)[k]] : [])))]),
      );
      variants.push({ type: 'object', properties });
    } else if (type === 'array') variants.push({ type: 'array', items: inferSchema(same.flat()) });
    else if (type === 'string') {
      const format = same.every((v) => DATE.test(String(v)))
        ? 'date'
        : same.every((v) => DATE_TIME.test(String(v)))
          ? 'date-time'
          : undefined;
      variants.push({ type: 'string', ...(format ? { format } : {}) });
    } else if (type === 'number' || type === 'boolean') variants.push({ type });
  }
  const only = variants[0];
  if (variants.length === 1 && only) return nullable ? { ...only, type: [only['type'], 'null'] } : only;
  if (variants.length === 0) return {};
  return nullable ? { anyOf: [...variants, { type: 'null' }] } : { anyOf: variants };
}

/** Every `number` of a schema as a decimal string (Pydantic's Decimal in JSON mode). */
function numbersAsText(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(numbersAsText);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json))
    out[key] =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, numbersAsText(v)]))
        : numbersAsText(value);
  if (out['type'] === 'number' || out['type'] === 'integer') {
    out['type'] = 'string';
    out['format'] = 'decimal';
  }
  return out;
}

/** The spec's snapshot in the dialect's values of `state` and `node_type`, and its numbers. */
function dealerRow(dialect: Dialect): Json {
  const schema = structuredClone(paramJsonSchema(dealerSnapshot).schema) as Json & { properties: Json };
  const values = dialect.traits.values;
  (schema.properties['state'] as Json)['enum'] = [...new Set(Object.values(values.state))];
  const strikes = schema.properties['strikes'] as { items: { properties: Json } };
  (strikes.items.properties['node_type'] as Json)['enum'] = [...new Set(Object.values(values.nodeType))];
  return (dialect.traits.numbers === 'strings' ? numbersAsText(schema) : schema) as Json;
}

const nullableText = { type: ['string', 'null'] };
const LINK_HEADER = {
  headers: { Link: { description: 'RFC 8288 links; rel="next" while more pages remain.', schema: { type: 'string' } } },
};

function metaSchema(token: string | undefined, flag: boolean): Json {
  return {
    type: 'object',
    properties: {
      request_id: { type: 'string' },
      cache_hit: { type: 'boolean' },
      data_freshness_seconds: { type: 'integer' },
      ...(flag ? { truncated: { type: 'boolean' } } : {}),
      notice: { type: 'string' },
      rate_limit_remaining: { type: 'integer' },
      quota_remaining_pct: { type: 'number' },
      data_source: { type: 'string' },
      ...(token ? { [token]: { ...nullableText, description: 'Cursor of the next page; null on the last page.' } } : {}),
    },
  };
}

/** The 200 response's content (and headers) in a described dialect; undefined where the catalog's stands. */
export function responseSchemas(pub: Publication, dialect: Dialect, book: SchemaBook): Json | undefined {
  const dataset = pub.published;
  const dealer = dataset.path === DEALER_PATH;
  if (dialect.traits.responses === 'catalog' && !(dealer && dialect.traits.dealerBody === 'spec')) return catalogResponse(pub, dialect);
  const { payload, rowRef, list } = rowsPayload(pub, dialect, book);
  const wrapper = wrapperOf(dialect, dataset);
  const paging = pub.paging;
  const headers = paging?.kind === 'link' ? LINK_HEADER : {};
  const content = (schema: Json): Json => ({ content: { 'application/json': { schema } }, ...headers });
  if (wrapper === 'bare') return content(payload);
  if (wrapper === 'keyed-by-ticker')
    return content(
      keyedByTicker(dialect, dataset) ? { type: 'object', additionalProperties: rowRef, description: 'Rows keyed by ticker.' } : payload,
    );
  const flag = carriesFlag(paging);
  const location = tokenLocation(dialect, dataset, paging);
  const metaKey = metaKeyOf(wrapper);
  const properties = wrapperProperties(wrapper, payload, list);
  Object.assign(properties, pagingProperties(location, paging));
  if (metaKey) properties[metaKey] = metaSchema(location?.where === 'meta' ? location.name : undefined, flag);
  else if (flag && wrapper !== 'polygon') properties['truncated'] = { type: 'boolean' };
  const body = { type: 'object', properties };
  return content(wrapper === 'bare-when-whole' ? { anyOf: [payload, body] } : body);
}

/** Where the catalog's response stands: only what a composed dialect makes untrue of it (a bare array, a Link header). */
function catalogResponse(pub: Publication, dialect: Dialect): Json | undefined {
  // The catalog's `{type: object}` is no longer true of a composed dialect that answers a bare array.
  const bareLists = ['bare', 'keyed-by-ticker', 'bare-when-whole'].includes(dialect.traits.wrapper) && !isNamedDialect(dialect);
  const described = {
    ...(bareLists ? { content: { 'application/json': { schema: {} } } } : {}),
    ...(pub.paging?.kind === 'link' ? LINK_HEADER : {}),
  };
  return Object.keys(described).length > 0 ? described : undefined;
}

/** The rows' named schema (inferred from generated rows, or the dealer's snapshot) and the payload the wrapper holds: a list, one row, or either. */
function rowsPayload(pub: Publication, dialect: Dialect, book: SchemaBook): { payload: Json; rowRef: Json; list: boolean } {
  const dataset = pub.published;
  const dealer = dataset.path === DEALER_PATH;
  const row = dealer ? dealerRow(dialect) : inferSchema([shapePayload(dialect, dataset, sampleRows(dataset, 7))].flat());
  const rowRef = {
    $ref: `#/components/schemas/${book.add(book.schemas, `${pascal(dataset.operationId)}Row`, { ...row, title: `${pascal(dataset.operationId)}Row` })}`,
  };
  const rows = { type: 'array', items: rowRef };
  const list = dealer || answersList(dataset);
  const payload: Json =
    dataset.operationId === 'volatility.anomaly'
      ? { anyOf: [rowRef, rows] }
      : !list
        ? rowRef
        : Object.hasOwn(dataset.query, 'format')
          ? { anyOf: [rows, { type: 'object', description: 'format=summary: counts and ranges.' }] }
          : rows;
  return { payload, rowRef, list };
}

/** The wrapper's own members around the payload. */
function wrapperProperties(wrapper: RowWrapper, payload: Json, list: boolean): Json {
  const properties: Json = {};
  if (wrapper === 'polygon') {
    Object.assign(properties, { status: { type: 'string' }, request_id: { type: 'string' }, count: { type: 'integer' }, results: payload });
  } else if (wrapper === 'data-meta') properties['data'] = payload;
  else if (wrapper === 'results-meta') properties['results'] = payload;
  else if (wrapper === 'items') properties['items'] = payload;
  else if (wrapper === 'records') Object.assign(properties, list ? { records: payload } : { data: payload });
  else properties['data'] = list ? { anyOf: [{ type: 'object', properties: { rows: payload } }, { type: 'object' }] } : payload;
  return properties;
}

/** What the paging answers with beside the rows: a token at the top or under `pagination`, a next URL, a total. */
function pagingProperties(location: TokenLocation | undefined, paging: Paging | undefined): Json {
  const properties: Json = {};
  if (location?.where === 'top') properties[location.name] = { ...nullableText, description: 'Cursor of the next page.' };
  if (location?.where === 'pagination')
    properties['pagination'] = {
      type: 'object',
      properties: { [location.name]: { ...nullableText, description: 'Cursor of the next page.' } },
    };
  if (paging?.kind === 'next-url')
    properties['next_url'] = { type: 'string', format: 'uri', description: 'The next page; absent on the last.' };
  if (paging?.kind === 'page-number')
    properties[paging.total] = { type: 'integer', description: paging.total === 'total' ? 'Rows in all pages.' : 'Pages in all.' };
  if (paging?.kind === 'offset') properties['total_count'] = { type: 'integer', description: 'Rows in all pages.' };
  return properties;
}
