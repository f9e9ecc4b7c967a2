/**
 * What an answer says when it read a dark-pool time window's budget of pages (newest prints
 * first) and has not yet reached the window's start: the window lies further back, so the
 * prints shown are not all of it, often none. Without this an answer of no rows reads as
 * "nothing in the window" although `has_more` is true.
 */
import { printTimeOf, type RowFilter } from './row-filters.js';

const ET_CLOCK = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

export function windowNotReached(filter: RowFilter, oldestRead: unknown, pages: number, matched: number): string {
  const at = typeof oldestRead === 'object' && oldestRead !== null ? printTimeOf(oldestRead as Record<string, unknown>) : undefined;
  const reached = at === undefined ? 'the prints read' : `prints back to ${ET_CLOCK.format(new Date(at))} ET`;
  const window = `${filter.fromTime ?? 'the open'} to ${filter.toTime ?? 'the close'} ET`;
  const found = matched === 0 ? 'none of its prints yet' : `${matched} of its prints so far`;
  return `The window ${window} is not fully read: ${pages} page(s), the most one answer reads, reached ${reached} (${found}). More rows remain: call again with only meta.next_cursor (and ticker) to read on toward ${filter.fromTime ?? 'the open'}.`;
}
