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

export function servePage(input: PageInput): ServedPage {
  const { dataset, paging, filters, page } = input;
  const largest = largestPage(dataset);
  const whole = (query: QueryValues): Generated => input.generate(largest === undefined ? query : { ...query, limit: largest });
  const slice = (generated: Generated, from: number, size: number): { data: Payload; more: boolean; length: number } => {
    const rows = generated.data;
    if (!Array.isArray(rows)) return { data: rows, more: false, length: 1 };
    return { data: rows.slice(from, from + size), more: from + size < rows.length, length: rows.length };
  };

  if (paging.kind === 'cursor' && hasNativeCursor(dataset)) {
    const generated = input.generate({
      ...filters,
      ...(page.size === undefined ? {} : { limit: page.size }),
      ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
    });
    const token = generated.nextCursor ?? null;
    return { data: generated.data, asOf: generated.asOf, more: token !== null, fields: { token } };
  }
  switch (paging.kind) {
    case 'first-rows': {
      const size = page.size ?? 0;
      if (largest !== undefined) {
        // One row past the size tells whether it hid rows, as an upstream's LIMIT n+1 does.
        const probe = input.generate({ ...filters, limit: size + 1 });
        const cut = slice(probe, 0, size);
        return { data: cut.data, asOf: probe.asOf, more: cut.more, fields: {} };
      }
      const generated = whole(filters);
      const cut = slice(generated, 0, size);
      return { data: cut.data, asOf: generated.asOf, more: cut.more, fields: {} };
    }
    case 'cursor': {
      const from = page.cursor === undefined ? 0 : decodePosition(page.cursor, dataset.operationId).n;
      const size = page.size ?? paging.pageSize;
      const generated = whole(filters);
      const cut = slice(generated, from, size);
      const token = cut.more ? encodePosition({ o: dataset.operationId, n: from + size }) : null;
      return { data: cut.data, asOf: generated.asOf, more: cut.more, fields: { token } };
    }
    case 'next-url': {
      const position = page.cursor === undefined ? undefined : decodePosition(page.cursor, dataset.operationId);
      const size = position?.s ?? page.size ?? paging.pageSize;
      const query = position?.q ?? filters;
      const from = position?.n ?? 0;
      const generated = whole(query);
      const cut = slice(generated, from, size);
      const next = encodePosition({ o: dataset.operationId, n: from + size, q: query, s: size });
      // The cursor carries the filters and the page size; the URL keeps the request's own parameters beside it, the required ones among them.
      const nextUrl = pageUrl(input.url, { [paging.cursor]: next });
      return { data: cut.data, asOf: generated.asOf, more: cut.more, fields: cut.more ? { nextUrl } : {} };
    }
    case 'link': {
      const number = page.page ?? 1;
      const size = page.size ?? paging.pageSize;
      const generated = whole(filters);
      const cut = slice(generated, (number - 1) * size, size);
      const last = Math.max(1, Math.ceil(cut.length / size));
      const links = [
        ...(cut.more ? [`<${pageUrl(input.url, { [paging.page]: String(number + 1) })}>; rel="next"`] : []),
        `<${pageUrl(input.url, { [paging.page]: String(last) })}>; rel="last"`,
        ...(number > 1 ? [`<${pageUrl(input.url, { [paging.page]: '1' })}>; rel="first"`] : []),
      ];
      return { data: cut.data, asOf: generated.asOf, more: cut.more, fields: { link: links.join(', ') } };
    }
    case 'page-number': {
      const number = page.page ?? 1;
      const size = page.size ?? 1;
      const generated = whole(filters);
      const cut = slice(generated, (number - 1) * size, size);
      const fields = paging.total === 'total' ? { total: cut.length } : { totalPages: Math.max(1, Math.ceil(cut.length / size)) };
      return { data: cut.data, asOf: generated.asOf, more: cut.more, fields };
    }
    case 'offset': {
      const from = page.offset ?? 0;
      const generated = whole(filters);
      const cut = slice(generated, from, page.size ?? 1);
      return { data: cut.data, asOf: generated.asOf, more: cut.more, fields: { totalCount: cut.length } };
    }
    case 'json-api': {
      const size = page.size ?? paging.pageSize;
      const from =
        paging.position === 'number'
          ? ((page.page ?? 1) - 1) * size
          : paging.position === 'offset'
            ? (page.offset ?? 0)
            : page.cursor === undefined
              ? 0
              : decodePosition(page.cursor, dataset.operationId).n;
      const generated = whole(filters);
      const cut = slice(generated, from, size);
      const sizeName = paging.position === 'offset' ? 'page[limit]' : 'page[size]';
      const nextAt =
        paging.position === 'number'
          ? String(Math.floor(from / size) + 2)
          : paging.position === 'offset'
            ? String(from + size)
            : encodePosition({ o: dataset.operationId, n: from + size });
      if (paging.next === 'links') {
        const next = cut.more ? pageUrl(input.url, { [sizeName]: String(size), [`page[${paging.position}]`]: nextAt }) : null;
        return { data: cut.data, asOf: generated.asOf, more: cut.more, fields: { linksNext: next } };
      }
      const metaPage =
        paging.position === 'number'
          ? { 'current-page': Math.floor(from / size) + 1, 'per-page': size, 'last-page': Math.max(1, Math.ceil(cut.length / size)) }
          : paging.position === 'offset'
            ? { offset: from, limit: size, total: cut.length }
            : { next_cursor: cut.more ? nextAt : null };
      return { data: cut.data, asOf: generated.asOf, more: cut.more, fields: { metaPage } };
    }
    case 'after-id': {
      // Each row of the whole list gets an id by its place in it, as a Stripe list's objects have theirs.
      const generated = whole(filters);
      const rows = Array.isArray(generated.data) ? generated.data.map((row, i) => ({ id: `r${i}`, ...row })) : [];
      let from = 0;
      if (page.cursor !== undefined) {
        const after = rows.findIndex((row) => row.id === page.cursor);
        if (after < 0)
          throw new DatasetRefusal('VALIDATION_ERROR', 'No row of this list has that id.', 'Pass the id of a row of the previous page.');
        from = after + 1;
      }
      const cut = slice({ ...generated, data: rows }, from, page.size ?? paging.pageSize);
      return { data: cut.data, asOf: generated.asOf, more: cut.more, fields: { hasMore: cut.more } };
    }
    case 'none': {
      const generated = whole(filters);
      const cut = slice(generated, 0, paging.cut ?? Number.MAX_SAFE_INTEGER);
      return { data: cut.data, asOf: generated.asOf, more: cut.more, fields: {} };
    }
  }
}
