/**
 * A 200 body as a dialect writes it: the payload's open field names under the dialect's
 * aliases, the open enums (`state`, `node_type`, `data_source`) in its values, numbers as
 * JSON numbers or numeric strings, then the rows in its wrapper with the paging's fields
 * where its protocol puts them. The dealer snapshot's field names are the spec's in every
 * dialect; its values and number encoding are not.
 */
import type { DatasetDefinition } from '../catalog/index.js';
import type { Dialect, EnumValues, Paging, RowWrapper } from './dialect.js';
import { DEALER_PATH, tokenPlace } from './dialect-lists.js';
import type { PageFields } from './dialect-paging.js';
import type { Cell, Payload, Row } from './generators/context.js';

/** Open payload fields and their names in each `fieldNames` choice (0 is ours). */
export const FIELD_ALIASES: Readonly<Record<string, Readonly<Record<string, readonly [string, string, string]>>>> = {
  'volatility.risk_reversal_skew': {
    rr25: ['rr25', 'rr_25d', 'risk_reversal_25d'],
    atm_iv30: ['atm_iv30', 'iv30', 'atm_iv_30d'],
  },
  'volatility.anomaly': {
    anomaly_score: ['anomaly_score', 'score', 'iv_anomaly_score'],
    iv_percentile_1y: ['iv_percentile_1y', 'percentile_1y', 'iv_pct_rank_1y'],
    iv30: ['iv30', 'iv_30d', 'implied_vol_30d'],
  },
  'stocks.sector_tickers': { ticker: ['ticker', 'symbol', 'symbol'] },
};

/** Lists whose rows each name a different ticker: what a dialect may key by ticker. */
const KEYED_BY_TICKER: ReadonlySet<string> = new Set([
  'stocks.sector_tickers',
  'shorts.short_screener',
  'volatility.character_top',
  'volatility.anomaly',
]);

/** A payload field's name in the dialect. */
export function fieldName(dialect: Dialect, operationId: string, ours: string): string {
  const aliases = Object.hasOwn(FIELD_ALIASES, operationId) ? FIELD_ALIASES[operationId] : undefined;
  const names = aliases && Object.hasOwn(aliases, ours) ? aliases[ours] : undefined;
  return names?.[dialect.traits.fieldNames] ?? ours;
}

/** Whether the dialect keys this dataset's rows by ticker. */
export function keyedByTicker(dialect: Dialect, dataset: DatasetDefinition): boolean {
  return dialect.traits.wrapper === 'keyed-by-ticker' && KEYED_BY_TICKER.has(dataset.operationId);
}

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numbersAsText(value: Cell): Cell {
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return (value as readonly Cell[]).map(numbersAsText);
  if (isRow(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, numbersAsText(v)]));
  return value;
}

function enumValue(map: Readonly<Record<string, string>>, value: Cell): Cell {
  return typeof value === 'string' && Object.hasOwn(map, value) ? (map[value] ?? value) : value;
}

function dealerValues(row: Row, values: EnumValues): Row {
  const strikes = row['strikes'];
  return {
    ...row,
    state: enumValue(values.state, row['state'] ?? null),
    ...(Array.isArray(strikes)
      ? { strikes: strikes.map((s: Cell) => (isRow(s) ? { ...s, node_type: enumValue(values.nodeType, s['node_type'] ?? null) } : s)) }
      : {}),
  };
}

function shapeRow(dialect: Dialect, dataset: DatasetDefinition, row: Row): Row {
  let shaped: Row = row;
  if (dataset.path === DEALER_PATH) shaped = dealerValues(shaped, dialect.traits.values);
  if (dialect.traits.fieldNames !== 0 && Object.hasOwn(FIELD_ALIASES, dataset.operationId))
    shaped = Object.fromEntries(Object.entries(shaped).map(([k, v]) => [fieldName(dialect, dataset.operationId, k), v]));
  if (dialect.traits.numbers === 'strings') shaped = numbersAsText(shaped) as Row;
  return shaped;
}

/** The payload in the dialect's field names, values and number encoding. */
export function shapePayload(dialect: Dialect, dataset: DatasetDefinition, payload: Payload): Payload {
  return Array.isArray(payload) ? payload.map((row) => shapeRow(dialect, dataset, row)) : shapeRow(dialect, dataset, payload);
}

/** Rows keyed by their ticker, each without it (`{AAPL: {...}, MSFT: {...}}`). */
function keyed(dialect: Dialect, dataset: DatasetDefinition, payload: Payload): unknown {
  const tickerField = fieldName(dialect, dataset.operationId, 'ticker');
  const entries = (Array.isArray(payload) ? payload : [payload]).map((row) => {
    const { [tickerField]: ticker, ...rest } = row;
    return [typeof ticker === 'string' ? ticker : JSON.stringify(ticker), rest] as const;
  });
  return Object.fromEntries(entries);
}

export interface BodyInput {
  readonly dialect: Dialect;
  readonly dataset: DatasetDefinition;
  /** Already shaped (shapePayload). */
  readonly payload: Payload;
  readonly meta: Record<string, unknown>;
  /** The list's paging; undefined for one object and the dealer history. */
  readonly paging: Paging | undefined;
  readonly more: boolean;
  readonly fields: PageFields;
  readonly requestId: string;
}

export function wrapperOf(dialect: Dialect, dataset: DatasetDefinition): RowWrapper {
  return dataset.path === DEALER_PATH && dialect.traits.dealerBody === 'spec' ? 'data-meta' : dialect.traits.wrapper;
}

export function metaKeyOf(wrapper: RowWrapper): '_meta' | 'meta' | undefined {
  if (wrapper === 'data-meta') return '_meta';
  return wrapper === 'results-meta' || wrapper === 'items' || wrapper === 'data-rows' || wrapper === 'bare-when-whole' ? 'meta' : undefined;
}

/** Whether the answer says `truncated`: a protocol without the flag leaves it out. */
export function carriesFlag(paging: Paging | undefined): boolean {
  return !paging || !((paging.kind === 'none' || paging.kind === 'first-rows') && !paging.flag);
}

/** Where a body puts the next page's token, if anywhere. */
export interface TokenLocation {
  readonly where: 'meta' | 'top' | 'pagination';
  readonly name: string;
  /** On the last page the token is null, or absent. */
  readonly last: 'null' | 'omit';
}

/**
 * A cursor protocol says where its token goes; a list that says `truncated` without one (and
 * the dealer history, and one object) also says it has no cursor where the wrapper keeps one,
 * as the spec's `_meta.next_cursor: null` does. Other protocols name no token.
 */
export function tokenLocation(dialect: Dialect, dataset: DatasetDefinition, paging: Paging | undefined): TokenLocation | undefined {
  const wrapper = wrapperOf(dialect, dataset);
  const unpaged = paging === undefined || paging.kind === 'first-rows' || paging.kind === 'none';
  if (paging?.kind !== 'cursor' && !(unpaged && carriesFlag(paging))) return undefined;
  const place = paging?.kind === 'cursor' ? { tokenAt: paging.tokenAt, last: paging.last } : tokenPlace(wrapper);
  if (!place || wrapper === 'bare' || wrapper === 'keyed-by-ticker') return undefined;
  const metaKey = metaKeyOf(wrapper);
  switch (place.tokenAt) {
    case 'meta.next_cursor':
      return { where: metaKey ? 'meta' : 'top', name: 'next_cursor', last: place.last };
    case 'meta.next':
      return { where: metaKey ? 'meta' : 'top', name: 'next', last: place.last };
    case 'pagination.next_page_token':
      return { where: 'pagination', name: 'next_page_token', last: place.last };
    case 'next':
    case 'next_cursor':
      return { where: 'top', name: place.tokenAt, last: place.last };
  }
}

export function writeBody(input: BodyInput): unknown {
  const { dialect, dataset, payload, paging, fields, more } = input;
  const wrapper = wrapperOf(dialect, dataset);
  const list = Array.isArray(payload);
  if (wrapper === 'bare') return payload;
  if (wrapper === 'keyed-by-ticker') return keyedByTicker(dialect, dataset) ? keyed(dialect, dataset, payload) : payload;

  const flag = carriesFlag(paging);
  const truncated = input.meta['truncated'];
  const meta: Record<string, unknown> = { ...input.meta };
  if (!flag) delete meta['truncated'];
  if (dialect.traits.values.dataSource !== meta['data_source'] && meta['data_source'] !== undefined)
    meta['data_source'] = dialect.traits.values.dataSource;
  const metaKey = metaKeyOf(wrapper);
  if (wrapper === 'bare-when-whole' && list && !more && fields.token == null) return payload;

  const top: Record<string, unknown> = {};
  if (wrapper === 'polygon') {
    top['status'] = 'OK';
    top['request_id'] = input.requestId;
    top['count'] = list ? payload.length : 1;
    top['results'] = payload;
  } else if (wrapper === 'data-meta') top['data'] = payload;
  else if (wrapper === 'results-meta') top['results'] = payload;
  else if (wrapper === 'items') top['items'] = payload;
  else if (wrapper === 'records') top[list ? 'records' : 'data'] = payload;
  else top['data'] = list ? { rows: payload } : payload;

  const location = tokenLocation(dialect, dataset, paging);
  const token = fields.token !== undefined ? fields.token : null;
  let metaToken: [string, string | null] | undefined;
  if (location && (token !== null || location.last === 'null')) {
    if (location.where === 'meta') metaToken = [location.name, token];
    else if (location.where === 'pagination') top['pagination'] = { [location.name]: token };
    else top[location.name] = token;
  }
  if (fields.nextUrl !== undefined) top['next_url'] = fields.nextUrl;
  if (fields.total !== undefined) top['total'] = fields.total;
  if (fields.totalPages !== undefined) top['total_pages'] = fields.totalPages;
  if (fields.totalCount !== undefined) top['total_count'] = fields.totalCount;
  if (fields.linksNext !== undefined) top['links'] = { self: input.requestId, next: fields.linksNext };
  if (fields.hasMore !== undefined) {
    top['object'] = 'list';
    top['has_more'] = fields.hasMore;
  }
  if (metaKey) top[metaKey] = metaToken ? { ...meta, [metaToken[0]]: metaToken[1] } : meta;
  else if (flag && wrapper !== 'polygon' && fields.metaPage === undefined) top['truncated'] = truncated;
  if (fields.metaPage !== undefined) {
    // JSON:API's `meta.page`: inside the wrapper's `meta`, or a `meta` of its own beside `_meta` or none.
    const own = metaKey === 'meta' && typeof top['meta'] === 'object' ? (top['meta'] as Record<string, unknown>) : {};
    top['meta'] = { ...own, page: fields.metaPage };
  }
  return top;
}
