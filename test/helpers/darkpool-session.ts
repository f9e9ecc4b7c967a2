/**
 * A dark-pool session as the upstream pages it, read straight from the simulator in its
 * dialect (our names sent under its names, a page size only where it takes one, its own
 * cursor followed): what a read through the server is held against.
 */
import assert from 'node:assert/strict';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { sizeCap, takesPageSize, upstreamList } from './upstream.js';

export type Row = Record<string, unknown>;

const ET = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** A print's HH:MM in New York. */
export const clockOf = (row: Row): string => ET.format(new Date(String(row['executed_at'])));

/** Every AAPL print of the session, newest first, page by page. */
export async function sessionPages(sim: RunningSimulator, day: string): Promise<Row[][]> {
  const path = '/v1/darkpool/by-ticker/{ticker}';
  const size = takesPageSize(sim, path) ? Math.min(500, sizeCap(sim, path)) : undefined;
  const read = await upstreamList(sim, path, { ticker: 'AAPL', filters: { session_date: day }, ...(size ? { size } : {}) });
  assert.ok(read.pages.length > 0 && read.pages.length <= 60, `the session in 1 to 60 pages (${read.pages.length})`);
  return read.pages;
}
