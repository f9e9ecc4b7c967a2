/**
 * A dark-pool session as the upstream pages it, read straight from the simulator in its
 * dialect (our names sent under its names, a page size only where it takes one, its own
 * cursor followed): what a read through the server is held against.
 */
import assert from 'node:assert/strict';
import { payloadParts, rowsIn } from '../../src/api/payload-parts.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { get } from './http.js';

export type Row = Record<string, unknown>;

const ET = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** A print's HH:MM in New York. */
export const clockOf = (row: Row): string => ET.format(new Date(String(row['executed_at'])));

/** Every AAPL print of the session, newest first, page by page. */
export async function sessionPages(sim: RunningSimulator, day: string): Promise<Row[][]> {
  const { params } = sim.api.dialect;
  const pages: Row[][] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 60; page += 1) {
    const query = new URLSearchParams({ [params['session_date'] ?? 'session_date']: day });
    if (params['limit'] !== null) query.set(params['limit'] ?? 'limit', '500');
    if (cursor) query.set('cursor', cursor);
    const parts = payloadParts((await get(sim, `/v1/darkpool/by-ticker/AAPL?${query.toString()}`)).body);
    const rows = rowsIn(parts.data);
    assert.ok(rows, `page ${page} holds rows: ${JSON.stringify(parts.data).slice(0, 200)}`);
    pages.push(rows as Row[]);
    cursor = parts.nextCursor;
    if (!cursor) return pages;
  }
  throw new Error('the session did not end within 60 pages');
}
