/**
 * Reads a tool call's `cursor`: one this server minted over a trimmed page (it carries the
 * query and the position), or the upstream's own, passed through. Returns the arguments to
 * validate and send, and what the result shaper needs to mint the next cursor.
 */
import { ApiError } from '../api/errors.js';
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import { upstreamRoles } from '../catalog/param-roles.js';
import { argumentsOf, decodePageCursor, isOurCursor } from './paging.js';
import type { Paging } from './results.js';

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
const FIELDS = 'fields';
const fieldsText = (fields: unknown): string | undefined =>
  Array.isArray(fields) && fields.length > 0 && fields.every((f) => typeof f === 'string') ? fields.join(',') : undefined;

/**
 * The call's arguments to validate and send (less `fields`), the paging state, and the
 * `fields` in effect: the call's own, or those its cursor carries.
 */
export function pagingOf(
  dataset: DatasetDefinition,
  given: Record<string, unknown>,
): { args: Record<string, unknown>; paging: Paging | undefined; fields: unknown } {
  const { cursor: raw, ticker, [FIELDS]: fields, ...rest } = given;
  // The upstream's cursor, under whatever name its document gives that role (page_token...).
  const cursorName = upstreamRoles(dataset).cursor;
  const upstreamCursor = cursorName !== undefined;
  const takesCursor = upstreamCursor || 'cursor' in (dataset.shaping ?? {});
  const withTicker = (args: Record<string, unknown>): Record<string, unknown> => (ticker === undefined ? args : { ticker, ...args });
  const t = typeof ticker === 'string' ? { t: ticker } : {};
  if (!takesCursor) {
    const args = { ...given };
    delete args[FIELDS];
    return { args, paging: undefined, fields };
  }
  if (isOurCursor(raw)) {
    const decoded = decodePageCursor(raw, dataset.operationId, typeof ticker === 'string' ? ticker : undefined);
    const repeated = fieldsText(fields);
    const args = argumentsOf(decoded, repeated === undefined ? rest : { ...rest, [FIELDS]: repeated }, dataset.ticker !== undefined);
    const carried = args[FIELDS];
    delete args[FIELDS];
    if (decoded.u && cursorName) args[cursorName] = decoded.u;
    return {
      args: withTicker(args),
      paging: { base: { o: dataset.operationId, ...t, q: decoded.q }, upstreamCursor: decoded.u, skip: decoded.s ?? 0 },
      fields: typeof carried === 'string' ? carried.split(',') : undefined,
    };
  }
  if (raw !== undefined && raw !== null && !upstreamCursor) {
    throw new ApiError({
      code: 'VALIDATION_ERROR',
      status: 400,
      message: 'The cursor is invalid: not one this server issued.',
      hint: 'Pass meta.next_cursor exactly as the previous answer of this tool returned it, or drop cursor.',
      local: true,
    });
  }
  // No cursor, or the upstream's own: the query is what the caller gave. A raw upstream
  // cursor is forwarded unsigned on purpose: the upstream is the authority on its own
  // cursors (it refuses a bad one as VALIDATION_ERROR), it steers nothing of ours (no
  // offset, no query), and an agent may hold one legitimately from an answer that passed
  // the upstream's cursor through or from the API itself. Only what we mint needs our tag.
  const shown = fieldsText(fields);
  const base = { o: dataset.operationId, ...t, q: { ...queryOf(rest), ...(shown === undefined ? {} : { [FIELDS]: shown }) } };
  const passed = raw === undefined || raw === null || !cursorName ? {} : { [cursorName]: raw };
  return {
    args: raw === undefined || raw === null ? withTicker(rest) : withTicker({ ...rest, ...passed }),
    paging: { base, upstreamCursor: typeof raw === 'string' ? raw : undefined, skip: 0 },
    fields,
  };
}

/** The session, window or range a query covers, in words. */
export function shapingCovers(query: QueryValues): string {
  const session = query['session_date'];
  const window = query['window'];
  const from = query['from'];
  const to = query['to'];
  if (window !== undefined)
    return `${String(window)} window ending ${session === undefined ? 'the latest session' : `session ${String(session)}`} (ET)`;
  if (session !== undefined) return `session ${String(session)} (ET)`;
  if (from !== undefined || to !== undefined)
    return `${from === undefined ? 'oldest' : String(from)} to ${to === undefined ? 'latest' : String(to)}`;
  return 'latest';
}
