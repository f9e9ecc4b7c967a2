/**
 * Paging as a protocol learned from evidence. The document says which parameters a dataset
 * takes (by role: a cursor, a page number, an offset; catalog/param-roles.ts); each answer
 * says where the next page is (paging-evidence.ts). A next page is followed only in a form
 * the document lets us send (the cursor a next URL names, sent by the document's cursor
 * parameter), or at a URL the upstream issued for the same request path on the same origin
 * (its own evidence: the key never goes elsewhere).
 *
 * What one answer tells of the rows after it:
 * - a next page to follow (a token, a URL, a page number or an offset);
 * - rows follow but cannot be reached (`truncated`, the API cut its list);
 * - this is the last page (the upstream said so: an empty next slot, `has_more: false` or
 *   `truncated: false`, the last of `total_pages`, an offset at `total_count`, a page shorter
 *   than the size asked, or a Link header naming other pages but no next);
 * - nobody can tell (`end_unknown`): rows, and nothing said of an end (no total, no flag, no
 *   slot, not a short page). A page or offset protocol then names the next page (reading it
 *   finds out); either way the answer says the end is unknown instead of claiming one.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import type { RoleNames } from '../catalog/param-roles.js';
import { withValues, type DatasetQuery } from './dataset-query.js';
import { upstreamName } from '../catalog/upstream-names.js';
import { paramJsonSchema } from '../catalog/openapi.js';
import type { PagingEvidence } from './paging-evidence.js';

export const nextPageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('token'), token: z.string() }),
  /** Path and query below the base URL (`/v1/...?...`), checked to be the request's own path. */
  z.object({ kind: z.literal('url'), url: z.string() }),
  z.object({ kind: z.literal('page'), page: z.number().int() }),
  z.object({ kind: z.literal('offset'), offset: z.number().int().min(0) }),
]);

/** Where the next page is, in a form this dataset can ask for. */
export type NextPage = z.infer<typeof nextPageSchema>;

/** What an answer says of the rows after it, for this dataset. */
export interface FollowedPaging {
  next_page?: NextPage;
  /** Rows follow that no next page reaches (the API cut its list). */
  cut: boolean;
  /** Whether more rows exist is not known (a next page, if named, may be empty). */
  end_unknown: boolean;
  /** Why rows are out of reach: a next page on another origin or path, or more said with no next page this dataset can ask for. */
  why?: 'elsewhere' | 'unreachable';
}

/** What an answer says of rows the API holds past a page this server cannot ask for. */
export const OUT_OF_REACH: Record<NonNullable<FollowedPaging['why']>, string> = {
  elsewhere:
    "The API names its next page at an address other than this dataset's own (another host or path), which is not asked: the rows after it are not read.",
  unreachable: 'The API says more rows follow but names no next page this server can ask for: the rows after these are not read.',
};

/**
 * `url` as a request this client may send: the same origin as the base URL and the same path
 * as the request it continues; its path and query below the base path, or undefined.
 */
export type SameRequest = (url: string) => string | undefined;

function firstPageNumber(dataset: DatasetDefinition, name: string): number {
  const schema = dataset.query[name];
  const json = schema ? paramJsonSchema(schema).schema : {};
  const floor = typeof json['minimum'] === 'number' ? json['minimum'] : typeof json['default'] === 'number' ? json['default'] : 1;
  return floor === 0 ? 0 : 1;
}

/** The one value of the query parameter `name` in `url` (absolute, or a path and query), or undefined. */
function cursorIn(url: string, name: string): string | undefined {
  let values: string[];
  try {
    values = new URL(url, 'http://next-page.invalid').searchParams.getAll(name);
  } catch {
    return undefined;
  }
  const [value] = values;
  return values.length === 1 && value !== undefined && value !== '' ? value : undefined;
}

const numeric = (value: string | number | undefined): number | undefined => {
  const n = typeof value === 'number' ? value : value === undefined ? undefined : Number(value);
  return n !== undefined && Number.isFinite(n) ? n : undefined;
};

/**
 * The next page of an answer to `query` (MCP-side names, as sent), from its evidence and the
 * parameters the dataset's document lists. `reached` is the page this answer is (undefined:
 * the first): a total speaks of the rows read only where this page's offset is known, and a
 * page reached by the upstream's own next token or URL that names none is its last.
 */
export function followPaging(
  asked: DatasetQuery,
  evidence: PagingEvidence | undefined,
  sameRequest: SameRequest,
  reached?: NextPage,
): FollowedPaging {
  const { dataset, values: query, roles } = asked;
  const found = evidence ?? {};
  const rows = found.rows;
  const more = found.more;
  const url = found.url !== undefined ? sameRequest(found.url) : undefined;
  if (found.token !== undefined && roles.cursor)
    return { next_page: { kind: 'token', token: found.token }, cut: false, end_unknown: false };
  if (url !== undefined) return { next_page: { kind: 'url', url }, cut: false, end_unknown: false };
  // A next URL this server cannot send back as given that names the document's own cursor (`…&tickers=SPY&tickers=QQQ&cursor=c2`):
  // the cursor is the upstream's token for the next page, asked by that parameter with the rest of this query.
  const token = found.url !== undefined && roles.cursor ? cursorIn(found.url, upstreamName(dataset, roles.cursor)) : undefined;
  if (token !== undefined) return followed({ kind: 'token', token });
  // Named, but not in a form this dataset can send (a URL elsewhere, or one that repeats a name: `tickers=SPY&tickers=QQQ`),
  // and no page number or offset of the document's to ask the next page by instead: the rest is out of reach.
  if ((found.token !== undefined || found.url !== undefined) && !roles.page && !roles.offset)
    return { cut: true, end_unknown: false, why: 'elsewhere' };
  // Stripe: `has_more` and no token; the next page is the rows after the last one's id, where the document takes one.
  if (asked.cursorTakesRowId && more === true && found.last_id !== undefined && rows !== undefined && rows > 0)
    return followed({ kind: 'token', token: found.last_id });
  const perPage = found.per_page ?? numeric(roles.pageSize ? query[roles.pageSize] : undefined);
  const short = rows !== undefined && (rows === 0 || (perPage !== undefined && rows < perPage));
  if (roles.page) {
    const first = firstPageNumber(dataset, roles.page);
    const current = found.page ?? numeric(query[roles.page]) ?? first;
    const read = current - first + 1;
    const next: NextPage = { kind: 'page', page: current + 1 };
    if (found.total_pages !== undefined) return read < found.total_pages ? followed(next) : ended();
    if (found.total !== undefined && perPage !== undefined) return read * perPage < found.total ? followed(next) : ended();
    return byFlags(next, more, short, found.ended);
  }
  if (roles.offset) {
    const current = found.offset ?? numeric(query[roles.offset]) ?? 0;
    const next: NextPage = { kind: 'offset', offset: current + (rows ?? 0) };
    if (rows === 0) return ended();
    if (found.total !== undefined && rows !== undefined) return current + rows < found.total ? followed(next) : ended();
    return byFlags(next, more, short, found.ended);
  }
  // No position this dataset can send: the upstream's list as it gave it, cut where it said rows follow. With a
  // cursor parameter the document lists but no value for it, the rest is out of reach; without one, a larger limit may hold it.
  const cut: FollowedPaging = { cut: true, end_unknown: false, ...(roles.cursor ? { why: 'unreachable' as const } : {}) };
  if (more === true) return cut;
  // An empty next slot (`links.next: null`) or `has_more: false` is the upstream saying this is its last page.
  if (more === false || found.ended === true) return ended();
  // This page's offset: given, or 0 on the first page; a page reached by a token or URL starts where nobody said.
  const startsAt = found.offset ?? (reached === undefined && !(roles.cursor && query[roles.cursor] !== undefined) ? 0 : undefined);
  if (found.total !== undefined && rows !== undefined && startsAt !== undefined) return startsAt + rows < found.total ? cut : ended();
  // Reached by the upstream's own next token or URL, and naming none now: the dialect's last page.
  if (reached?.kind === 'url' || reached?.kind === 'token') return ended();
  // Rows, and nothing said of an end (no flag, no empty next slot, no total, not a short page): a full list
  // and one the upstream cut without a word look alike, so the end is not claimed.
  const silent = !short && rows !== undefined && rows > 0;
  return { cut: false, end_unknown: silent };
}

function followed(next: NextPage): FollowedPaging {
  return { next_page: next, cut: false, end_unknown: false };
}

function ended(): FollowedPaging {
  return { cut: false, end_unknown: false };
}

/** A page or offset protocol without totals: the flags or a short page say the end; else it is not known. */
function byFlags(next: NextPage, more: boolean | undefined, short: boolean, slotEmpty: boolean | undefined): FollowedPaging {
  if (more === true) return followed(next);
  if (more === false || short || slotEmpty === true) return ended();
  return { next_page: next, cut: false, end_unknown: true };
}

/** The query that asks for `next` (token, page or offset under the dataset's own parameter); undefined for a URL. */
export function queryAt(asked: DatasetQuery, next: NextPage): DatasetQuery | undefined {
  const placed = positionOfPage(asked.roles, next);
  return placed && withValues(asked, { ...asked.values, ...placed });
}

/** `next` as the one parameter that asks for it (the cursor, page or offset the roles name); undefined for a URL. */
export function positionOfPage(roles: RoleNames, next: NextPage): QueryValues | undefined {
  if (next.kind === 'token' && roles.cursor) return { [roles.cursor]: next.token };
  if (next.kind === 'page' && roles.page) return { [roles.page]: next.page };
  if (next.kind === 'offset' && roles.offset) return { [roles.offset]: next.offset };
  return undefined;
}

/**
 * A short name of an upstream page (the first page has none): what a read and our cursor
 * remember of the pages already read, so a next page the upstream names again (`c2 → c1`) is
 * never followed a second time. 48 bits: two pages of one list meeting by chance is out of reach.
 */
export function pageKey(page: NextPage): string {
  const value =
    page.kind === 'token' ? page.token : page.kind === 'url' ? page.url : String(page.kind === 'page' ? page.page : page.offset);
  return createHash('sha256').update(`${page.kind}\0${value}`).digest('base64url').slice(0, 8);
}

/** Keys of the pages a cursor remembers: the last few are enough to break any cycle the upstream falls into within them. */
export const PAGES_REMEMBERED = 8;

/** What an answer says when the upstream named as next a page already read. */
export const PAGING_REPEATED =
  "The API's paging repeated itself (it named as next a page already read), so it is not followed again: the rows shown are all this server could read, and whether more exist is not known.";
