/**
 * Cursors minted by this server. When a page is trimmed to fit the result budget, the
 * next cursor must continue right after the last row shown, not at the upstream's next
 * page. Our cursor names the upstream page the agent was reading (by its upstream cursor,
 * so the repeat comes from the cache without another unit where it can) and how far into
 * it the agent got; it also carries the query, so following it needs only the cursor.
 *
 * Sealed: a cursor carries a query and an upstream position the server will act on, so one
 * built by hand (an upstream cursor the upstream never gave, an offset past the page's end)
 * must be refused before any request, as the refusal text promises. The key is derived
 * from the API key, so every node of the account (and a restarted one) verifies the
 * others' cursors without configuration; the key itself never enters a cursor.
 *
 * A call's `cursor` argument is read here too (pagingOf): one of ours is opened into the
 * query and position it carries; the upstream's own is passed through under its name.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import type { ApiError } from '../../api/errors.js';
import { invalidArguments } from '../answers/tool-errors.js';
import type { DatasetDefinition } from '../../catalog/index.js';
import type { RoleNames } from '../../catalog/param-roles.js';
import { PAGES_REMEMBERED, pageKey, positionOfPage, type NextPage } from '../../api/next-page.js';
import { FIELDS_PARAM } from './input-schema.js';

const PREFIX = 'mc1-';

/** Bytes of HMAC-SHA256 kept: 96 bits is out of reach of guessing and keeps cursors short. */
const TAG_BYTES = 12;

// One key per process, set at start-up; until then (and with no key at all) a random one,
// so an unconfigured process still never accepts a cursor it did not mint itself.
let cursorKey: Buffer = randomBytes(32);

/** Keys cursors to the account's API key (in --demo, the simulator's fixed one). */
export function keyCursorsTo(apiKey: string | undefined): void {
  cursorKey =
    apiKey === undefined || apiKey === '' ? randomBytes(32) : createHmac('sha256', apiKey).update('market-data-mcp cursor v1').digest();
}

function tagOf(payload: string): Buffer {
  return createHmac('sha256', cursorKey).update(payload).digest().subarray(0, TAG_BYTES);
}

export function seal(payload: string): string {
  return `${payload}.${tagOf(payload).toString('base64url')}`;
}

/** The payload of a sealed cursor whose tag verifies, else undefined. */
export function unseal(sealed: string): string | undefined {
  const dot = sealed.lastIndexOf('.');
  if (dot < 0) return undefined;
  const payload = sealed.slice(0, dot);
  const given = Buffer.from(sealed.slice(dot + 1), 'base64url');
  const expected = tagOf(payload);
  return given.length === expected.length && timingSafeEqual(given, expected) ? payload : undefined;
}

/** A cursor's content, as this server writes it; anything else was not issued here. */
const pageCursorSchema = z.object({
  /** Operation id the cursor belongs to. */
  o: z.string(),
  /** Ticker, when the dataset has one. */
  t: z.string().optional(),
  /** The arguments of the first page (upstream query and MCP-side shaping), cursor excluded. */
  q: z.record(z.string(), z.union([z.string(), z.number()])),
  /**
   * The upstream page being read, absent for the first: its token (`u`), the URL it issued
   * (`l`, path and query below the base URL), its page number (`g`) or its offset (`f`).
   * One at most (next-page.ts in src/api).
   */
  u: z.string().optional(),
  l: z.string().max(1000).optional(),
  g: z.number().int().optional(),
  f: z.number().int().min(0).optional(),
  /** Rows of that upstream page already returned. */
  s: z.number().int().min(0).optional(),
  /** Short keys of the upstream pages read before this one (next-page.ts pageKey), oldest first: a page named again is not followed. */
  v: z.array(z.string().max(16)).max(16).optional(),
  /** Dealer history: snapshot_at of the last snapshot returned (pages may shift as snapshots arrive). */
  a: z.string().optional(),
});

export type PageCursor = z.infer<typeof pageCursorSchema>;

/** The fields of a cursor that name an upstream page. */
export type UpstreamPosition = Pick<PageCursor, 'u' | 'l' | 'g' | 'f'>;

/** The keys a cursor to `next` remembers: those before, and `current` (the page just read), the last few kept. */
export function visitedThrough(visited: readonly string[] | undefined, current: NextPage | undefined): string[] | undefined {
  const trail = [...(visited ?? []), ...(current ? [pageKey(current)] : [])].slice(-PAGES_REMEMBERED);
  return trail.length > 0 ? trail : undefined;
}

/** Whether `next` is a page already read, by this answer or by the answers before it. */
export function pageRepeats(visited: readonly string[] | undefined, current: NextPage | undefined, next: NextPage): boolean {
  const key = pageKey(next);
  return (current !== undefined && pageKey(current) === key) || (visited ?? []).includes(key);
}

/** An upstream page as a cursor's fields (none for the first page). */
export function positionOf(page: NextPage | undefined): UpstreamPosition {
  if (page === undefined) return {};
  if (page.kind === 'token') return { u: page.token };
  if (page.kind === 'url') return { l: page.url };
  return page.kind === 'page' ? { g: page.page } : { f: page.offset };
}

/** The upstream page a cursor names; undefined for the first. */
export function upstreamPageOf(cursor: UpstreamPosition): NextPage | undefined {
  if (cursor.u !== undefined) return { kind: 'token', token: cursor.u };
  if (cursor.l !== undefined) return { kind: 'url', url: cursor.l };
  if (cursor.g !== undefined) return { kind: 'page', page: cursor.g };
  return cursor.f !== undefined ? { kind: 'offset', offset: cursor.f } : undefined;
}

/**
 * Whether `value` is a cursor of ours. Whitespace around it is not part of it (a cursor has
 * none inside): an agent that copies meta.next_cursor with a trailing newline or a leading
 * space passed it as it was given.
 */
export function isOurCursor(value: unknown): value is string {
  return typeof value === 'string' && value.trim().startsWith(PREFIX);
}

export function encodePageCursor(cursor: PageCursor): string {
  return PREFIX + seal(Buffer.from(JSON.stringify(cursor)).toString('base64url'));
}

/** A cursor refused before any request, saying why. */
export function invalidCursor(why: string): ApiError {
  return invalidArguments(
    `The cursor is invalid: ${why}.`,
    'Pass meta.next_cursor exactly as the previous page of the same tool returned it, or drop cursor to start again.',
  );
}

/** What to tell the agent about the first field of a cursor that does not parse. */
const FIELD_PROBLEM: Record<string, string> = {
  q: 'it carries a bad query',
  u: 'bad upstream cursor',
  l: 'bad upstream page',
  g: 'bad upstream page',
  f: 'bad upstream page',
  s: 'bad offset',
  a: 'bad position',
  v: 'bad position',
};

export function decodePageCursor(given: string, operationId: string, ticker: string | undefined): PageCursor {
  // Ours stay well under this; anything longer is not worth decoding.
  if (given.length > 2048) throw invalidCursor('too long');
  const value = given.trim();
  // Checked before anything in it is read: an edited or hand-built cursor is refused whole.
  const payload = unseal(value.slice(PREFIX.length));
  if (payload === undefined) throw invalidCursor('not one this server issued');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('not one this server issued');
  }
  const cursor = pageCursorSchema.safeParse(parsed);
  if (!cursor.success) {
    const field = String(cursor.error.issues[0]?.path[0] ?? '');
    throw invalidCursor(FIELD_PROBLEM[field] ?? 'not one this server issued');
  }
  const c = cursor.data;
  if (c.o !== operationId) throw invalidCursor('it belongs to another tool');
  // The hint after a trimmed page says "ticker and cursor are enough": an agent that sent the
  // cursor alone did pass it exactly as given, so it is told what is missing, not that it erred.
  if (c.t !== undefined && ticker === undefined)
    throw invalidArguments(
      `"ticker" is missing: this cursor was issued for ${c.t}.`,
      `Call again with ticker "${c.t}" and the same cursor.`,
    );
  if (c.t !== ticker) throw invalidCursor('it belongs to another ticker');
  return c;
}

/**
 * The arguments a page is read with: the cursor's own, with anything the caller repeats
 * required to agree (a changed filter with an old cursor would skip or repeat rows).
 */
export function argumentsOf(cursor: PageCursor, given: Record<string, unknown>, takesTicker: boolean): Record<string, unknown> {
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || value === null) continue;
    const same = typeof value === 'string' || typeof value === 'number' ? String(cursor.q[name]) === String(value) : false;
    if (!(name in cursor.q) || !same) {
      throw invalidArguments(
        `"${name}" differs from the query the cursor was issued for.`,
        `Follow a cursor with only ${takesTicker ? 'ticker and cursor' : 'cursor'} (it remembers the rest), or drop cursor to start a new query.`,
      );
    }
  }
  return { ...cursor.q };
}

/**
 * The upstream's page-number and offset parameters: this server drives them itself (it reads
 * pages and hands the agent a cursor of ours that resumes exactly), so a tool neither
 * advertises nor takes them, whatever the document calls them; a cursor of ours places them.
 * An optional one only: a position the document requires is the agent's to give.
 */
export function serverDrivenParams(dataset: DatasetDefinition, roles: RoleNames): ReadonlySet<string> {
  if (dataset.toolOutput) return NONE;
  const driven = [roles.page, roles.offset].filter(
    (name): name is string => name !== undefined && dataset.query[name]?.safeParse(undefined).success === true,
  );
  return driven.length === 0 ? NONE : new Set(driven);
}
const NONE: ReadonlySet<string> = new Set();

export interface Paging {
  /** What a minted cursor carries besides the position; undefined when the tool takes no cursor. */
  base: Omit<PageCursor, 'u' | 'l' | 'g' | 'f' | 's' | 'a' | 'v'> | undefined;
  /** The upstream page being shaped (absent for the first upstream page). */
  upstreamPage: NextPage | undefined;
  /** Rows of this upstream page already returned by earlier answers. */
  skip: number;
  /** Keys of the upstream pages read before this one, by earlier answers (oldest first). */
  visited?: readonly string[];
}

function queryOf(args: Record<string, unknown>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(args)) {
    if (typeof value === 'string' || typeof value === 'number') out[name] = value;
  }
  return out;
}

/**
 * `fields` rides in a cursor's query as one comma-joined value (a query holds text and
 * numbers): a cursor carries every shaping argument of the call that made it, so page two
 * comes in the columns page one did (it came 2.7x larger a row without them).
 */
const fieldsText = (fields: unknown): string | undefined =>
  Array.isArray(fields) && fields.length > 0 && fields.every((f) => typeof f === 'string') ? fields.join(',') : undefined;

/**
 * The call's arguments to validate and send (less `fields`), the paging state, and the
 * `fields` in effect: the call's own, or those its cursor carries.
 */
export function pagingOf(
  dataset: DatasetDefinition,
  roles: RoleNames,
  given: Record<string, unknown>,
): { args: Record<string, unknown>; paging: Paging | undefined; fields: unknown } {
  const { cursor: raw, ticker, [FIELDS_PARAM]: fields, ...rest } = given;
  // The upstream's cursor, under whatever name its document gives that role (page_token...).
  const takesCursor =
    roles.cursor !== undefined || roles.page !== undefined || roles.offset !== undefined || 'cursor' in (dataset.shaping ?? {});
  const withTicker = (args: Record<string, unknown>): Record<string, unknown> => (ticker === undefined ? args : { ticker, ...args });
  const t = typeof ticker === 'string' ? { t: ticker } : {};
  if (!takesCursor) {
    const args = { ...given };
    delete args[FIELDS_PARAM];
    return { args, paging: undefined, fields };
  }
  if (isOurCursor(raw)) {
    const decoded = decodePageCursor(raw, dataset.operationId, typeof ticker === 'string' ? ticker : undefined);
    // `fields` repeated with the cursor must agree with those it carries, as any argument
    // (a value that is no list of names differs from any).
    const omitted = fields === undefined || fields === null || (Array.isArray(fields) && fields.length === 0);
    const repeated = omitted ? undefined : (fieldsText(fields) ?? fields);
    const args = argumentsOf(decoded, repeated === undefined ? rest : { ...rest, [FIELDS_PARAM]: repeated }, dataset.ticker !== undefined);
    const carried = args[FIELDS_PARAM];
    delete args[FIELDS_PARAM];
    const at = upstreamPageOf(decoded);
    // A token, page or offset is an argument under the document's own name, checked as any; a URL the upstream issued is asked as it is.
    const placed = at ? positionOfPage(roles, at) : undefined;
    if (placed) Object.assign(args, placed);
    return {
      args: withTicker(args),
      paging: { base: { o: dataset.operationId, ...t, q: decoded.q }, upstreamPage: at, skip: decoded.s ?? 0, visited: decoded.v ?? [] },
      fields: typeof carried === 'string' ? carried.split(',') : undefined,
    };
  }
  // Only a cursor this server issued is followed: one built by hand, edited, empty or the
  // upstream's own raw token would be sent as it is and charged for an answer (often an empty
  // page read as the list's end) that no earlier answer of this tool led to. Every answer's
  // next_cursor is ours, so an agent never legitimately holds a raw one.
  if (raw !== undefined && raw !== null) {
    throw invalidCursor('not one this server issued');
  }
  const shown = fieldsText(fields);
  const base = { o: dataset.operationId, ...t, q: { ...queryOf(rest), ...(shown === undefined ? {} : { [FIELDS_PARAM]: shown }) } };
  return { args: withTicker(rest), paging: { base, upstreamPage: undefined, skip: 0 }, fields };
}
