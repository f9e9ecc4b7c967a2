/**
 * Cursors minted by this server. When a page is trimmed to fit the result budget, the
 * next cursor must continue right after the last row shown, not at the upstream's next
 * page. Our cursor names the upstream page the agent was reading (by its upstream cursor,
 * so the repeat comes from the cache without another unit where it can) and how far into
 * it the agent got; it also carries the query, so following it needs only the cursor.
 */
import * as z from 'zod';
import { ApiError } from '../../api/errors.js';
import type { NextPage } from '../../api/next-page.js';
import { seal, unseal } from './cursor-seal.js';

const PREFIX = 'mc1-';

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
  /** Dealer history: snapshot_at of the last snapshot returned (pages may shift as snapshots arrive). */
  a: z.string().optional(),
});

export type PageCursor = z.infer<typeof pageCursorSchema>;

/** The fields of a cursor that name an upstream page. */
export type UpstreamPosition = Pick<PageCursor, 'u' | 'l' | 'g' | 'f'>;

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

export function isOurCursor(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

export function encodePageCursor(cursor: PageCursor): string {
  return PREFIX + seal(Buffer.from(JSON.stringify(cursor)).toString('base64url'));
}

function invalid(why: string): ApiError {
  return new ApiError({
    code: 'VALIDATION_ERROR',
    status: 400,
    message: `The cursor is invalid: ${why}.`,
    hint: 'Pass meta.next_cursor exactly as the previous page of the same tool returned it, or drop cursor to start again.',
    local: true,
  });
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
};

export function decodePageCursor(value: string, operationId: string, ticker: string | undefined): PageCursor {
  // Ours stay well under this; anything longer is not worth decoding.
  if (value.length > 2048) throw invalid('too long');
  // Checked before anything in it is read: an edited or hand-built cursor is refused whole.
  const payload = unseal(value.slice(PREFIX.length));
  if (payload === undefined) throw invalid('not one this server issued');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid('not one this server issued');
  }
  const cursor = pageCursorSchema.safeParse(parsed);
  if (!cursor.success) {
    const field = String(cursor.error.issues[0]?.path[0] ?? '');
    throw invalid(FIELD_PROBLEM[field] ?? 'not one this server issued');
  }
  const c = cursor.data;
  if (c.o !== operationId) throw invalid('it belongs to another tool');
  if (c.t !== ticker) throw invalid('it belongs to another ticker');
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
      throw new ApiError({
        code: 'VALIDATION_ERROR',
        status: 400,
        message: `"${name}" differs from the query the cursor was issued for.`,
        hint: `Follow a cursor with only ${takesTicker ? 'ticker and cursor' : 'cursor'} (it remembers the rest), or drop cursor to start a new query.`,
        local: true,
      });
    }
  }
  return { ...cursor.q };
}
