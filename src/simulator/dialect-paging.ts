/**
 * One page of a list, served by the dialect's paging protocol. Every protocol but the
 * spec's own (a page size that answers the first rows) and a native cursor cuts its pages
 * out of the same whole list (the dataset's largest page, filters applied), so the pages
 * of any protocol hold the same rows in the same order: what a test reads straight from
 * the simulator is what the server must read through it.
 */
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import type { Paging } from './dialect.js';
import { hasNativeCursor, largestPage } from './dialect-lists.js';
import type { PageRequest } from './dialect-params.js';
import { DatasetRefusal, type Generated, type Payload } from './generators/index.js';

/** What the paging adds to a page's body and headers. */
export interface PageFields {
  /** The cursor of the next page (null on the last page of a cursor protocol). */
  readonly token?: string | null;
  readonly nextUrl?: string;
  readonly total?: number;
  readonly totalPages?: number;
  readonly totalCount?: number;
  /** The `Link` header. */
  readonly link?: string;
  /** JSON:API's `links.next` (null on the last page). */
  readonly linksNext?: string | null;
  /** JSON:API's `meta.page`. */
  readonly metaPage?: Readonly<Record<string, number | string | null>>;
  /** Stripe's `has_more`. */
  readonly hasMore?: boolean;
}

export interface ServedPage {
  readonly data: Payload;
  readonly asOf: number;
  /** Rows of the list lie past this page: the simulator's own truth, whether or not its protocol can say so. */
  readonly more: boolean;
  readonly fields: PageFields;
}

/** Where the request was sent: for the URLs a `Link` header or `next_url` names. */
export interface RequestUrl {
  readonly origin: string;
  readonly path: string;
  readonly search: URLSearchParams;
}

interface Position {
  o: string;
  n: number;
  /** The filters a `next_url` cursor carries (the URL names nothing else). */
  q?: QueryValues;
  /** Its page size. */
  s?: number;
}

export function encodePosition(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

function decodePosition(cursor: string, operationId: string): Position {
  let position: Partial<Position> | undefined;
  try {
    position = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<Position>;
  } catch {
    position = undefined;
  }
  if (position?.o !== operationId || !Number.isSafeInteger(position.n) || (position.n ?? -1) < 0)
    throw new DatasetRefusal(
      'VALIDATION_ERROR',
      'The cursor is invalid or belongs to another query.',
      'Use the next cursor of the previous page, or drop cursor.',
    );
  return position as Position;
}

/** The URL of another page: the request's own query with `changes` (a name set to undefined is dropped). */
function pageUrl(url: RequestUrl, changes: Record<string, string | undefined>): string {
  const search = new URLSearchParams(url.search);
  for (const [name, value] of Object.entries(changes)) {
    search.delete(name);
    if (value !== undefined) search.set(name, value);
  }
  return `${url.origin}${url.path}?${search.toString()}`;
}

export interface PageInput {
  readonly dataset: DatasetDefinition;
  readonly paging: Paging;
  readonly filters: QueryValues;
  readonly page: PageRequest;
  readonly url: RequestUrl;
  /** Rows for a query in our names (filters applied). */
  readonly generate: (query: QueryValues) => Generated;
}

/** One protocol's page of a list: the request, and the whole list read in one go (up to its largest page). */
interface ListPage {
  readonly input: PageInput;
  readonly whole: (query: QueryValues) => Generated;
}

type PagingOf<K extends Paging['kind']> = Extract<Paging, { kind: K }>;

/** A page of the list as the dialect's protocol for it serves one. */
export function servePage(input: PageInput): ServedPage {
  const { dataset, paging } = input;
  const largest = largestPage(dataset);
  const list: ListPage = { input, whole: (query) => input.generate(largest === undefined ? query : { ...query, limit: largest }) };
  if (paging.kind === 'cursor' && hasNativeCursor(dataset)) return nativeCursorPage(input);
  switch (paging.kind) {
    case 'first-rows':
      return firstRowsPage(list, largest !== undefined);
    case 'cursor':
      return positionCursorPage(list, paging);
    case 'next-url':
      return nextUrlPage(list, paging);
    case 'link':
      return linkHeaderPage(list, paging);
    case 'page-number':
      return pageNumberPage(list, paging);
    case 'offset':
      return offsetPage(list);
    case 'json-api':
      return jsonApiPage(list, paging);
    case 'after-id':
      return afterIdPage(list, paging);
    case 'none':
      return served(sliceRows(list.whole(input.filters), 0, paging.cut ?? Number.MAX_SAFE_INTEGER), {});
  }
}

/** `size` rows of a generated list from `from`, whether more follow, and how many there are. */
function sliceRows(
  generated: Generated,
  from: number,
  size: number,
): { generated: Generated; data: Payload; more: boolean; length: number } {
  const rows = generated.data;
  if (!Array.isArray(rows)) return { generated, data: rows, more: false, length: 1 };
  return { generated, data: rows.slice(from, from + size), more: from + size < rows.length, length: rows.length };
}

/** What the protocol's page serves: the cut's rows, when they were generated, whether more follow, and its own fields. */
function served(cut: ReturnType<typeof sliceRows>, fields: PageFields): ServedPage {
  return { data: cut.data, asOf: cut.generated.asOf, more: cut.more, fields };
}

/** A dataset with a cursor of its own (the dealer history): its generator pages itself. */
function nativeCursorPage(input: PageInput): ServedPage {
  const { filters, page } = input;
  const generated = input.generate({
    ...filters,
    ...(page.size === undefined ? {} : { limit: page.size }),
    ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
  });
  const token = generated.nextCursor ?? null;
  return { data: generated.data, asOf: generated.asOf, more: token !== null, fields: { token } };
}

/** The first `size` rows and no way on; one row past the size tells whether it hid rows, as an upstream's LIMIT n+1 does. */
function firstRowsPage(list: ListPage, bounded: boolean): ServedPage {
  const { filters, page } = list.input;
  const size = page.size ?? 0;
  const generated = bounded ? list.input.generate({ ...filters, limit: size + 1 }) : list.whole(filters);
  return served(sliceRows(generated, 0, size), {});
}

/** A token of ours for the next position. */
function positionCursorPage(list: ListPage, paging: PagingOf<'cursor'>): ServedPage {
  const { dataset, filters, page } = list.input;
  const from = page.cursor === undefined ? 0 : decodePosition(page.cursor, dataset.operationId).n;
  const size = page.size ?? paging.pageSize;
  const cut = sliceRows(list.whole(filters), from, size);
  const token = cut.more ? encodePosition({ o: dataset.operationId, n: from + size }) : null;
  return served(cut, { token });
}

/** A next URL whose cursor carries the filters and the page size; the URL keeps the request's own parameters beside it, the required ones among them. */
function nextUrlPage(list: ListPage, paging: PagingOf<'next-url'>): ServedPage {
  const { dataset, filters, page, url } = list.input;
  const position = page.cursor === undefined ? undefined : decodePosition(page.cursor, dataset.operationId);
  const size = position?.s ?? page.size ?? paging.pageSize;
  const query = position?.q ?? filters;
  const from = position?.n ?? 0;
  const cut = sliceRows(list.whole(query), from, size);
  const nextUrl = pageUrl(url, { [paging.cursor]: encodePosition({ o: dataset.operationId, n: from + size, q: query, s: size }) });
  return served(cut, cut.more ? { nextUrl } : {});
}

/** Page numbers, with RFC 8288 `Link` relations next, last and first. */
function linkHeaderPage(list: ListPage, paging: PagingOf<'link'>): ServedPage {
  const { filters, page, url } = list.input;
  const number = page.page ?? 1;
  const size = page.size ?? paging.pageSize;
  const cut = sliceRows(list.whole(filters), (number - 1) * size, size);
  const last = Math.max(1, Math.ceil(cut.length / size));
  const links = [
    ...(cut.more ? [`<${pageUrl(url, { [paging.page]: String(number + 1) })}>; rel="next"`] : []),
    `<${pageUrl(url, { [paging.page]: String(last) })}>; rel="last"`,
    ...(number > 1 ? [`<${pageUrl(url, { [paging.page]: '1' })}>; rel="first"`] : []),
  ];
  return served(cut, { link: links.join(', ') });
}

/** Page numbers with the total of rows or of pages beside them. */
function pageNumberPage(list: ListPage, paging: PagingOf<'page-number'>): ServedPage {
  const { filters, page } = list.input;
  const number = page.page ?? 1;
  const size = page.size ?? 1;
  const cut = sliceRows(list.whole(filters), (number - 1) * size, size);
  const fields = paging.total === 'total' ? { total: cut.length } : { totalPages: Math.max(1, Math.ceil(cut.length / size)) };
  return served(cut, fields);
}

/** Offsets with the total count beside them. */
function offsetPage(list: ListPage): ServedPage {
  const { filters, page } = list.input;
  const cut = sliceRows(list.whole(filters), page.offset ?? 0, page.size ?? 1);
  return served(cut, { totalCount: cut.length });
}

/** JSON:API's `page[...]` members, the way on in `links.next` or in `meta.page`. */
function jsonApiPage(list: ListPage, paging: PagingOf<'json-api'>): ServedPage {
  const { dataset, filters, page, url } = list.input;
  const size = page.size ?? paging.pageSize;
  const from = jsonApiStart(list.input, paging.position, size);
  const cut = sliceRows(list.whole(filters), from, size);
  const nextAt =
    paging.position === 'number'
      ? String(Math.floor(from / size) + 2)
      : paging.position === 'offset'
        ? String(from + size)
        : encodePosition({ o: dataset.operationId, n: from + size });
  if (paging.next === 'links') {
    const sizeName = paging.position === 'offset' ? 'page[limit]' : 'page[size]';
    const next = cut.more ? pageUrl(url, { [sizeName]: String(size), [`page[${paging.position}]`]: nextAt }) : null;
    return served(cut, { linksNext: next });
  }
  const metaPage =
    paging.position === 'number'
      ? { 'current-page': Math.floor(from / size) + 1, 'per-page': size, 'last-page': Math.max(1, Math.ceil(cut.length / size)) }
      : paging.position === 'offset'
        ? { offset: from, limit: size, total: cut.length }
        : { next_cursor: cut.more ? nextAt : null };
  return served(cut, { metaPage });
}

/** Where a JSON:API page starts: by its number, its offset or its cursor. */
function jsonApiStart(input: PageInput, position: PagingOf<'json-api'>['position'], size: number): number {
  const { page, dataset } = input;
  if (position === 'number') return ((page.page ?? 1) - 1) * size;
  if (position === 'offset') return page.offset ?? 0;
  return page.cursor === undefined ? 0 : decodePosition(page.cursor, dataset.operationId).n;
}

/** Stripe's form: each row of the whole list gets an id by its place in it, and the next page is the rows after a given id. */
function afterIdPage(list: ListPage, paging: PagingOf<'after-id'>): ServedPage {
  const { filters, page } = list.input;
  const generated = list.whole(filters);
  const rows = Array.isArray(generated.data) ? generated.data.map((row, i) => ({ id: `r${i}`, ...row })) : [];
  let from = 0;
  if (page.cursor !== undefined) {
    const after = rows.findIndex((row) => row.id === page.cursor);
    if (after < 0)
      throw new DatasetRefusal('VALIDATION_ERROR', 'No row of this list has that id.', 'Pass the id of a row of the previous page.');
    from = after + 1;
  }
  const cut = sliceRows({ ...generated, data: rows }, from, page.size ?? paging.pageSize);
  return served(cut, { hasMore: cut.more });
}
