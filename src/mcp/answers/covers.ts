/**
 * What an answer covers, in words (`meta.covers`): the session, window or range asked, and
 * never more than was read. Rows that stopped short of the range's start cover only what
 * they reach.
 */
import type { QueryValues } from '../../catalog/index.js';

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

/** The range an answer covers when its rows reach back only to `reached`: never the part not read. */
export function coversReached(reached: string, to: string | number | undefined): string {
  const end = typeof to === 'string' ? to : 'latest';
  if (typeof to === 'string' && reached > to) return `none of the range: the rows read reach back only to ${reached}`;
  return `${reached} to ${end}`;
}
