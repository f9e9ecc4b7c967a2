/**
 * What one answer says about the pages after it, wherever it says it: a token (`next_cursor`,
 * `next`, `next_page_token`, `nextPageToken`, `pagination.cursor`, `cursors.after`), a URL
 * (`next_url`, `links.next`, `_links.next.href`, a `Link: <…>; rel="next"` header), page
 * numbers with `total_pages` or `total`, an offset with `total_count`, and flags
 * (`has_more`, `hasNextPage`, the upstream's own `truncated`). Pure evidence: which of it can
 * be followed depends on the parameters the dataset's document lists (api/next-page.ts).
 */
import LinkHeader from 'http-link-header';
import * as z from 'zod';
import type { MetaEntry } from './payload-parts.js';

export const pagingEvidenceSchema = z.object({
  /** A token for the next page. */
  token: z.string().optional(),
  /** The next page's URL, as the upstream wrote it (absolute or relative). */
  url: z.string().optional(),
  /** Whether the upstream said rows follow this page, when it said (`has_more`, `truncated`...). */
  more: z.boolean().optional(),
  /** The upstream left its next-page slot empty (`next_cursor: null`, a Link header without `next`): this is its last page. */
  ended: z.boolean().optional(),
  /** This page's number, the number of pages, rows a page, this page's offset and all rows, where the answer gives them. */
  page: z.number().optional(),
  total_pages: z.number().optional(),
  per_page: z.number().optional(),
  offset: z.number().optional(),
  total: z.number().optional(),
  /** Rows on this page. */
  rows: z.number().optional(),
  /** The `id` of this page's last row (text or an integer, as text): what a Stripe-style `starting_after` continues after. */
  last_id: z.string().optional(),
});

export type PagingEvidence = z.infer<typeof pagingEvidenceSchema>;

/** Keys whose value is the next page's token (folded). */
const TOKEN_KEYS = new Set([
  'nextcursor',
  'nextpagetoken',
  'nexttoken',
  'nextpagecursor',
  'continuationtoken',
  'continuation',
  'nextmarker',
  'nextkey',
]);
/** Keys of a pagination object whose value is the next page's token. */
const PAGINATION_TOKEN_KEYS = new Set(['cursor', 'after']);
/** Objects that hold paging and nothing else (folded). */
const PAGINATION = new Set(['pagination', 'paging', 'cursors', 'cursor', 'pageinfo', 'page']);
const URL_KEYS = new Set(['nexturl', 'nextlink', 'nextpageurl', 'nexthref', 'nextpage']);
const MORE_KEYS = new Set(['hasmore', 'hasnextpage', 'hasnext', 'more', 'moreresults', 'moreavailable', 'truncated']);
const PAGE_KEYS = new Set(['page', 'currentpage', 'pagenumber', 'pagenum', 'pageindex']);
const TOTAL_PAGES_KEYS = new Set(['totalpages', 'pagecount', 'pages', 'lastpage', 'numpages', 'pagestotal']);
const PER_PAGE_KEYS = new Set(['perpage', 'pagesize', 'limit', 'pagelimit']);
const OFFSET_KEYS = new Set(['offset', 'skip', 'startindex']);
const TOTAL_KEYS = new Set(['total', 'totalcount', 'totalresults', 'totalitems', 'totalrecords', 'totalrows', 'totalsize']);
/** Every scalar name read here as paging (folded): payload-parts.ts keeps them out of the data. */
export const PAGING_SCALARS: ReadonlySet<string> = new Set([
  ...TOKEN_KEYS,
  ...PAGINATION_TOKEN_KEYS,
  ...URL_KEYS,
  ...MORE_KEYS,
  ...PAGE_KEYS,
  ...TOTAL_PAGES_KEYS,
  ...PER_PAGE_KEYS,
  ...OFFSET_KEYS,
  ...TOTAL_KEYS,
]);
/** Objects about the page before, never the next (folded). */
const BACKWARD = new Set(['previous', 'prev', 'before']);

/** A value that reads as a URL or a path-and-query rather than an opaque token. */
function urlLike(value: string): boolean {
  return /^(https?:)?\/\//i.test(value) || value.startsWith('/') || value.startsWith('?');
}

/** A number, or a numeric string (an upstream that sends numbers as text). */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)) return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

function flagOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  return undefined;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const empty = (value: unknown): boolean => value === null || value === '';

/** A row's `id` as the upstream would take it back: non-empty text, or a safe integer written as text. */
export function rowIdOf(row: unknown): string | undefined {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return undefined;
  const id = (row as Record<string, unknown>)['id'];
  if (typeof id === 'string') return id !== '' && id.length <= 256 ? id : undefined;
  return typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : undefined;
}

/** The `rel="next"` target of a Link header, or `ended` when the header links other pages but no next. */
function fromLinkHeader(header: string | undefined): { url?: string; ended?: boolean } {
  if (header === undefined || header === '') return {};
  try {
    const links = LinkHeader.parse(header);
    const next = links.rel('next')[0]?.uri;
    if (next) return { url: next };
    return links.refs.length > 0 ? { ended: true } : {};
  } catch {
    return {};
  }
}

/** Paging said in response headers: `Link`, and the list's size (`X-Total-Count`, `X-Total`, `Content-Range: items 0-19/137`). */
export interface PagingHeaders {
  link?: string | undefined;
  total?: string | undefined;
  contentRange?: string | undefined;
}

/** The list's size from the standard headers; a `*` size (unknown) or anything unreadable is no evidence. */
function totalOfHeaders(headers: PagingHeaders): { total?: number; offset?: number } {
  const total = headers.total !== undefined ? numberOf(headers.total) : undefined;
  if (total !== undefined && total >= 0) return { total };
  const range = /^\s*[a-z]+\s+(\d+)-(\d+)\/(\d+)\s*$/i.exec(headers.contentRange ?? '');
  return range ? { offset: Number(range[1]), total: Number(range[3]) } : {};
}

/** The paging evidence of one answer: its metadata entries (payload-parts.ts), its paging headers and its row count. */
export function pagingEvidence(
  entries: readonly MetaEntry[],
  headers: PagingHeaders | string | undefined,
  rows: number | undefined,
  lastId?: string,
): PagingEvidence {
  const said: PagingHeaders = typeof headers === 'string' ? { link: headers } : (headers ?? {});
  const linkHeader = said.link;
  const found: PagingEvidence = {};
  let weakToken: string | undefined;
  let slotSeen = false;
  const set = <K extends keyof PagingEvidence>(key: K, value: PagingEvidence[K] | undefined): void => {
    if (value !== undefined && found[key] === undefined) found[key] = value;
  };
  for (const { within, key, value } of entries) {
    if (within.some((w) => BACKWARD.has(w))) continue;
    const inPagination = within.some((w) => PAGINATION.has(w));
    const inNext = within[within.length - 1] === 'next';
    if (TOKEN_KEYS.has(key) || key === 'next' || URL_KEYS.has(key) || (inNext && key === 'href')) {
      slotSeen = true;
      if (empty(value)) found.ended = true;
      const given = text(value);
      if (given === undefined) continue;
      if (urlLike(given)) set('url', given);
      // `next_page: "3"` is a page number, read from the page scheme instead.
      else if (!URL_KEYS.has(key) && key !== 'href') set('token', given);
    } else if (inPagination && PAGINATION_TOKEN_KEYS.has(key)) {
      slotSeen = true;
      if (empty(value)) found.ended = true;
      set('token', text(value));
    } else if (key === 'endcursor') weakToken ??= text(value);
    else if (MORE_KEYS.has(key)) set('more', flagOf(value));
    else if (PAGE_KEYS.has(key)) set('page', numberOf(value));
    else if (TOTAL_PAGES_KEYS.has(key)) set('total_pages', numberOf(value));
    else if (PER_PAGE_KEYS.has(key)) set('per_page', numberOf(value));
    else if (OFFSET_KEYS.has(key)) set('offset', numberOf(value));
    else if (TOTAL_KEYS.has(key)) set('total', numberOf(value));
  }
  // A GraphQL-style end cursor names the last row read: the next page only when the answer says one follows.
  if (found.token === undefined && weakToken !== undefined && found.more === true) found.token = weakToken;
  const link = fromLinkHeader(linkHeader);
  if (link.url !== undefined) set('url', link.url);
  if (link.ended && found.url === undefined && !slotSeen) found.ended = true;
  // A size in the body is the upstream's own word; the headers' only where the body says none.
  const fromHeaders = totalOfHeaders(said);
  if (found.total === undefined && fromHeaders.total !== undefined) {
    found.total = fromHeaders.total;
    if (fromHeaders.offset !== undefined) set('offset', fromHeaders.offset);
  }
  // A next page named is a next page, whatever an empty slot elsewhere says.
  if (found.token !== undefined || found.url !== undefined) delete found.ended;
  if (rows !== undefined) found.rows = rows;
  if (lastId !== undefined) found.last_id = lastId;
  return found;
}
