/**
 * Cursors minted by this server. When a page is trimmed to fit the result budget, the
 * next cursor must continue right after the last row shown, not at the upstream's next
 * page. Our cursor names the upstream page the agent was reading (by its upstream cursor,
 * so the repeat comes from the cache without another unit where it can) and how far into
 * it the agent got; it also carries the query, so following it needs only the cursor.
 */
import { ApiError } from '../api/errors.js';

const PREFIX = 'mc1-';

export interface PageCursor {
  /** Operation id the cursor belongs to. */
  o: string;
  /** Ticker, when the dataset has one. */
  t?: string;
  /** The arguments of the first page (upstream query and MCP-side shaping), cursor excluded. */
  q: Record<string, string | number>;
  /** Upstream cursor of the page being read; absent for the first upstream page. */
  u?: string;
  /** Rows of that upstream page already returned. */
  s?: number;
  /** Dealer history: snapshot_at of the last snapshot returned (pages may shift as snapshots arrive). */
  a?: string;
}

export function isOurCursor(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

export function encodePageCursor(cursor: PageCursor): string {
  return PREFIX + Buffer.from(JSON.stringify(cursor)).toString('base64url');
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

export function decodePageCursor(value: string, operationId: string, ticker: string | undefined): PageCursor {
  // Ours stay well under this; anything longer is not worth decoding.
  if (value.length > 2048) throw invalid('too long');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw invalid('not one this server issued');
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid('not one this server issued');
  const c = parsed as Partial<PageCursor>;
  if (c.o !== operationId) throw invalid('it belongs to another tool');
  if ((c.t ?? undefined) !== ticker) throw invalid('it belongs to another ticker');
  if (typeof c.q !== 'object' || c.q === null || Array.isArray(c.q)) throw invalid('it carries no query');
  for (const v of Object.values(c.q)) if (typeof v !== 'string' && typeof v !== 'number') throw invalid('it carries a bad query');
  if (c.u !== undefined && typeof c.u !== 'string') throw invalid('bad upstream cursor');
  if (c.s !== undefined && !(Number.isInteger(c.s) && c.s >= 0)) throw invalid('bad offset');
  if (c.a !== undefined && typeof c.a !== 'string') throw invalid('bad position');
  return c as PageCursor;
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
