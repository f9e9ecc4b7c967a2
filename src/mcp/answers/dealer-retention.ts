/**
 * A dealer range that starts before the history's retention (the latest three sessions):
 * the part before the oldest retained session cannot be read, and the answer says so, with
 * the sessions held, instead of answering as if the range were covered. Known from the
 * calendar, so the notice costs nothing; the retained part is read as usual.
 */
import { recentSessions, shiftDate, toEt } from '../../catalog/market-calendar.js';

/** Sessions the dealer history retains (spec: three exchange sessions). */
const RETAINED = 3;

/** The ET date of a range bound: a date as is, a date-time in New York's calendar. */
function etDateOf(bound: string): string | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(bound)) return bound;
  const ms = Date.parse(bound);
  return Number.isNaN(ms) ? undefined : toEt(ms).date;
}

export interface BeforeRetention {
  /** The oldest session the history holds: where the answer's coverage starts. */
  oldest: string;
  notice: string;
}

/**
 * For a from/to range whose start lies before the oldest retained session; undefined for a
 * session, a range inside the retention, or one wholly outside it (answered as empty before).
 * `seenOldest`: the oldest session the pages read held, should the API keep more than three.
 */
export function beforeRetention(
  window: { session?: string; from?: string; to?: string },
  now: number,
  seenOldest?: string,
): BeforeRetention | undefined {
  if (window.session || !window.from) return undefined;
  const held = recentSessions(now, RETAINED).map((s) => s.date);
  const calendarOldest = held[held.length - 1];
  const from = etDateOf(window.from);
  if (!calendarOldest || !from) return undefined;
  const oldest = seenOldest !== undefined && seenOldest < calendarOldest ? seenOldest : calendarOldest;
  if (from >= oldest) return undefined;
  return {
    oldest,
    notice: `${window.from} to ${shiftDate(oldest, -1)} cannot be read: the history retains only ${held.join(', ')}. Not charged.`,
  };
}
