/**
 * The simulator read straight, in its own dialect: the requests a client that knows the
 * dialect's every trait would send (its names, its list form, its paging protocol) and its
 * bodies taken apart as the dialect wrote them. What a read through the server is held
 * against; it shares nothing with the server's own reader (src/api, src/mcp).
 */
import assert from 'node:assert/strict';
import { paramJsonSchema, type DatasetDefinition } from '../../src/catalog/index.js';
import type { Dialect } from '../../src/simulator/dialect.js';
import { fieldName, keyedByTicker, metaKeyOf, tokenLocation, wrapperOf } from '../../src/simulator/dialect-body.js';
import { publication, type Publication } from '../../src/simulator/dialect-params.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { get } from './http.js';

export type Row = Record<string, unknown>;
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The dataset the simulator serves on a path (a runtime one included). */
export function servedDataset(sim: RunningSimulator, path: string): DatasetDefinition {
  const dataset = sim.api.datasets.find((d) => d.path === path);
  assert.ok(dataset, `the simulator serves ${path}`);
  return dataset;
}

/** A page taken apart as the dialect wrote it. */
export interface UpstreamPage {
  /** Rows, or the one object. */
  readonly payload: Row[] | Row;
  readonly token: string | undefined;
  readonly nextUrl: string | undefined;
  readonly total: number | undefined;
  readonly totalPages: number | undefined;
  readonly totalCount: number | undefined;
  readonly truncated: boolean | undefined;
  readonly meta: Json | undefined;
}

function rowsOrObject(value: unknown): Row[] | Row {
  if (Array.isArray(value)) return value.filter(isObject);
  assert.ok(isObject(value), `rows or an object: ${JSON.stringify(value).slice(0, 200)}`);
  return value;
}

/** The payload, meta and paging fields of a body, where `dialect` puts them for `dataset`. */
export function readPage(dialect: Dialect, dataset: DatasetDefinition, body: unknown): UpstreamPage {
  const pub = publication(dataset, dialect);
  const wrapper = wrapperOf(dialect, dataset);
  const empty = {
    token: undefined,
    nextUrl: undefined,
    total: undefined,
    totalPages: undefined,
    totalCount: undefined,
    truncated: undefined,
    meta: undefined,
  };
  if (wrapper === 'bare') return { ...empty, payload: rowsOrObject(body) };
  if (wrapper === 'keyed-by-ticker') {
    if (!keyedByTicker(dialect, dataset)) return { ...empty, payload: rowsOrObject(body) };
    assert.ok(isObject(body), 'rows keyed by ticker');
    const tickerField = fieldName(dialect, dataset.operationId, 'ticker');
    const rows = Object.entries(body).map(([ticker, row]) => ({ [tickerField]: ticker, ...(isObject(row) ? row : {}) }));
    return { ...empty, payload: dataset.operationId === 'volatility.anomaly' && rows.length === 1 && rows[0] ? rows[0] : rows };
  }
  if (wrapper === 'bare-when-whole' && Array.isArray(body)) return { ...empty, payload: rowsOrObject(body) };
  assert.ok(isObject(body), `a ${wrapper} body: ${JSON.stringify(body).slice(0, 200)}`);
  const held =
    wrapper === 'polygon' || wrapper === 'results-meta'
      ? body['results']
      : wrapper === 'items'
        ? body['items']
        : wrapper === 'records'
          ? (body['records'] ?? body['data'])
          : body['data'];
  const inner =
    (wrapper === 'data-rows' || wrapper === 'bare-when-whole') && isObject(held) && Array.isArray(held['rows']) ? held['rows'] : held;
  const metaKey = metaKeyOf(wrapper);
  const meta = metaKey && isObject(body[metaKey]) ? body[metaKey] : undefined;
  const location = tokenLocation(dialect, dataset, pub.paging);
  const from = location?.where === 'meta' ? meta : location?.where === 'pagination' ? body['pagination'] : body;
  const token = location && isObject(from) ? from[location.name] : undefined;
  const number = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
  const flag = meta?.['truncated'] ?? body['truncated'];
  return {
    payload: rowsOrObject(inner),
    token: typeof token === 'string' ? token : undefined,
    nextUrl: typeof body['next_url'] === 'string' ? body['next_url'] : undefined,
    total: number(body['total']),
    totalPages: number(body['total_pages']),
    totalCount: number(body['total_count']),
    truncated: typeof flag === 'boolean' ? flag : undefined,
    meta,
  };
}

/** The name the dialect gives one of our parameters on a dataset, if it offers it. */
export function upstreamName(sim: RunningSimulator, path: string, ours: string): string | undefined {
  const pub = publication(servedDataset(sim, path), sim.api.dialect);
  return pub.params.find((p) => p.role.kind === 'filter' && p.role.ours === ours)?.name;
}

/** The parameter names the dialect publishes for a dataset. */
export function publishedNames(sim: RunningSimulator, path: string): Set<string> {
  return new Set(publication(servedDataset(sim, path), sim.api.dialect).params.map((p) => p.name));
}

/** Whether the list takes a page size at all (a fixed-page or unpaged upstream does not). */
export function takesPageSize(sim: RunningSimulator, path: string): boolean {
  return publication(servedDataset(sim, path), sim.api.dialect).params.some((p) => p.role.kind === 'size');
}

/** The dealer history's page size where the dialect takes none (its fixed one), else undefined. */
export function dealerFixedPageSize(dialect: Dialect): number | undefined {
  return dialect.traits.dealerPaging.size === null ? dialect.traits.dealerPaging.pageSize : undefined;
}

/** The dealer history's cursor parameter in the dialect. */
export function dealerCursorName(dialect: Dialect): string {
  return dialect.traits.dealerPaging.cursor;
}

/** The dealer history's page query in the dialect: what a test reading it directly sends. */
export function dealerPageQuery(dialect: Dialect, cursor: string | undefined, size = 60): string {
  const params = new URLSearchParams();
  const { size: sizeName, cursor: cursorName } = dialect.traits.dealerPaging;
  if (sizeName) params.set(sizeName, String(size));
  if (cursor) params.set(cursorName, cursor);
  return params.toString();
}

function firstQuery(pub: Publication, filters: Readonly<Record<string, string>>, size: number | undefined): URLSearchParams {
  const query = new URLSearchParams();
  for (const param of pub.params) {
    const role = param.role;
    if (role.kind === 'filter' && Object.hasOwn(filters, role.ours)) {
      const value = filters[role.ours] ?? '';
      if (param.list === 'array-explode') for (const item of value.split(',')) query.append(param.name, item);
      else query.set(param.name, value);
    }
    if (role.kind === 'size' && size !== undefined) query.set(param.name, String(size));
  }
  return query;
}

/** The largest page size the dialect takes on a list (a large number where it takes none). */
export function sizeCap(sim: RunningSimulator, path: string): number {
  return sizeMaximum(publication(servedDataset(sim, path), sim.api.dialect)) ?? Number.MAX_SAFE_INTEGER;
}

function sizeMaximum(pub: Publication): number | undefined {
  const param = pub.params.find((p) => p.role.kind === 'size');
  const schema = param ? pub.published.query[param.name] : undefined;
  const max = schema ? paramJsonSchema(schema).schema['maximum'] : undefined;
  return typeof max === 'number' ? max : undefined;
}

function linkNext(header: string | null): string | undefined {
  for (const part of (header ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/**
 * Whether a JSON:API or Stripe page says where the list stands: a `links.next` (null on the
 * last page), a `meta.page` (its total, last page or next cursor), a `has_more`. Evidence of
 * an end a reader can see, as a total or a flag is.
 */
function saysOfAnEnd(paging: Publication['paging'], body: unknown): boolean {
  if (!isObject(body)) return false;
  if (paging?.kind === 'after-id') return typeof body['has_more'] === 'boolean';
  if (paging?.kind !== 'json-api') return false;
  const links = body['links'];
  const meta = body['meta'];
  return (isObject(links) && Object.hasOwn(links, 'next')) || (isObject(meta) && isObject(meta['page']));
}

export interface UpstreamList {
  readonly rows: Row[];
  /** The same rows, page by page. */
  readonly pages: Row[][];
  /** Requests the read took. */
  readonly requests: number;
  /** The list may hold rows no request can reach (a list cut with no way on); what the server must not call whole. */
  readonly cut: boolean;
  /**
   * The last page read was full and said nothing of an end (no flag, total, token, URL or `Link`):
   * a reader that does not know the dialect cannot tell it from a page with more after it.
   */
  readonly silentEnd: boolean;
}

export interface ListOptions {
  readonly ticker?: string;
  /** Our filters, sent under the dialect's names. */
  readonly filters?: Readonly<Record<string, string>>;
  /** A page size (default the largest the dialect takes). */
  readonly size?: number;
  /** Stop once this many rows are read. */
  readonly atMost?: number;
  readonly key?: string;
}

/** Every row the upstream serves of a list, page by page in its own protocol. */
export async function upstreamList(sim: RunningSimulator, path: string, options: ListOptions = {}): Promise<UpstreamList> {
  const dialect = sim.api.dialect;
  const dataset = servedDataset(sim, path);
  const pub = publication(dataset, dialect);
  const paging = pub.paging;
  const size = options.size ?? sizeMaximum(pub);
  const base = `${path.replace('{ticker}', options.ticker ?? 'AAPL')}`;
  let query = firstQuery(pub, options.filters ?? {}, size);
  const rows: Row[] = [];
  const pages: Row[][] = [];
  let requests = 0;
  let cut = false;
  let silentEnd = false;
  for (let page = 1; page <= 400; page += 1) {
    const response = await get(sim, `${base}?${query.toString()}`, options.key ?? 'sim-admin-key');
    requests += 1;
    assert.equal(response.status, 200, `${dialect.name} ${base}?${query.toString()}: ${response.text.slice(0, 300)}`);
    const read = readPage(dialect, dataset, response.body);
    const payload = Array.isArray(read.payload) ? read.payload : [read.payload];
    rows.push(...payload);
    pages.push(payload);
    const said =
      [read.token, read.nextUrl, read.total, read.totalPages, read.totalCount, read.truncated].some((v) => v !== undefined) ||
      saysOfAnEnd(paging, response.body);
    const asked = Number(query.get(paging?.kind === 'first-rows' || paging?.kind === 'page-number' ? paging.size : '') ?? size);
    silentEnd = !said && !response.headers.get('link') && payload.length > 0 && (!Number.isFinite(asked) || payload.length >= asked);
    if (options.atMost !== undefined && rows.length >= options.atMost)
      return { rows: rows.slice(0, options.atMost), pages, requests, cut, silentEnd };
    const next = new URLSearchParams(query);
    if (pub.dealer || paging?.kind === 'cursor') {
      if (!read.token) break;
      const name = pub.dealer ? pub.dealer.cursor : paging?.kind === 'cursor' ? paging.cursor : '';
      next.set(name, read.token);
    } else if (paging?.kind === 'next-url') {
      if (!read.nextUrl) break;
      const url = new URL(read.nextUrl);
      query = url.searchParams;
      continue;
    } else if (paging?.kind === 'link') {
      const url = linkNext(response.headers.get('link'));
      if (!url) break;
      query = new URL(url).searchParams;
      continue;
    } else if (paging?.kind === 'json-api') {
      // JSON:API: `links.next`, or `meta.page` (a page count, a total beside an offset, a next cursor).
      const body = response.body as { links?: { next?: string | null }; meta?: { page?: Record<string, unknown> } };
      if (paging.next === 'links') {
        if (!body.links?.next) break;
        query = new URL(body.links.next).searchParams;
        continue;
      }
      const said = body.meta?.page ?? {};
      if (paging.position === 'number') {
        if (page >= Number(said['last-page'] ?? 0)) break;
        next.set('page[number]', String(page + 1));
      } else if (paging.position === 'offset') {
        const offset = Number(said['offset'] ?? 0) + payload.length;
        if (payload.length === 0 || offset >= Number(said['total'] ?? 0)) break;
        next.set('page[offset]', String(offset));
      } else {
        if (typeof said['next_cursor'] !== 'string') break;
        next.set('page[cursor]', said['next_cursor']);
      }
    } else if (paging?.kind === 'after-id') {
      // Stripe: `has_more`, and the next page after the last row's id.
      const last = payload.at(-1)?.['id'];
      if ((response.body as { has_more?: unknown }).has_more !== true || typeof last !== 'string') break;
      next.set(paging.cursor, last);
    } else if (paging?.kind === 'page-number') {
      const pageSize = Number(query.get(paging.size) ?? size ?? 1);
      const pages = read.totalPages ?? Math.ceil((read.total ?? 0) / pageSize);
      if (page >= pages) break;
      next.set(paging.page, String(page + 1));
    } else if (paging?.kind === 'offset') {
      const offset = Number(query.get(paging.offset) ?? 0) + payload.length;
      if (payload.length === 0 || offset >= (read.totalCount ?? 0)) break;
      next.set(paging.offset, String(offset));
    } else {
      // Unpaged, or the first rows: one request is all there is.
      const cap = paging?.kind === 'none' ? paging.cut : paging?.kind === 'first-rows' ? size : undefined;
      cut = read.truncated === true || (read.truncated === undefined && cap !== undefined && cap !== null && payload.length >= cap);
      break;
    }
    query = next;
  }
  return { rows, pages, requests, cut, silentEnd };
}

/** Every dealer snapshot the upstream holds for a ticker, newest first, in the dialect. */
export async function upstreamSnapshots(sim: RunningSimulator, ticker: string, key?: string): Promise<Row[]> {
  return (await upstreamList(sim, '/v1/derived/dealer-gex/{ticker}/history', { ticker, ...(key ? { key } : {}) })).rows;
}

/** A row compared across readers: its fields sorted, every scalar as text (a reader may turn "1.5" into 1.5). */
export function rowKey(row: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : isObject(value)
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, canonical(value[k])]),
          )
        : typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : null;
  return JSON.stringify(canonical(row));
}
