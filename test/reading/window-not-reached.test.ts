/**
 * A dark-pool time window one answer's budget does not reach back to: the answer says the
 * window is not fully read and to follow next_cursor, and following it reads on to the
 * window's prints. The budget is made small here (one page of 500 prints) so that the case
 * a busier name or a smaller page size would meet shows on the simulator's sessions.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { datasetQuery } from '../../src/api/dataset-query.js';
import { readLocally } from '../../src/mcp/reading/local-pages.js';
import { decodePageCursor, upstreamPageOf } from '../../src/mcp/arguments/cursor.js';
import { rowFilterOf } from '../../src/mcp/reading/row-filters.js';
import { dataset, makeClient } from '../helpers/client.js';
import { withSimulator } from '../helpers/http.js';
import { lastFullSession } from '../helpers/sessions.js';
import { testCall } from '../helpers/call.js';

const ET = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

test('a window past the pages one answer reads says so and how to read on; the cursor then reaches it', async () => {
  await withSimulator({ dialect: 'spec' }, async (sim) => {
    const { client } = makeClient(sim);
    const darkpool = dataset('darkpool.by_ticker');
    const day = lastFullSession();
    const filter = rowFilterOf(darkpool, { from_time: '09:30', to_time: '10:00' });
    assert.ok(filter);
    const q = { session_date: day, limit: 500 };
    const deps = { client, call: testCall(), onProgress: undefined, windowBudget: { rows: 500, pages: 1 } };
    const base = { o: darkpool.operationId, t: 'AAPL', q: { ...q, from_time: '09:30', to_time: '10:00' } };
    const first = await readLocally(datasetQuery(darkpool, 'AAPL', q), {}, { base, upstreamPage: undefined, skip: 0 }, filter, deps);
    const rows = first.result.data as Record<string, unknown>[];
    assert.equal(rows.length, 0, 'the newest 500 prints of a full session lie after 10:00 ET');
    assert.match(String(first.result.meta.notice), /window 09:30 to 10:00 ET is not fully read.*1 page\(s\).*next_cursor/);
    const cursor = first.cursorAfter(0);
    assert.ok(cursor, 'a cursor to read on');
    const at = decodePageCursor(cursor, darkpool.operationId, 'AAPL');
    const rest = await readLocally(
      datasetQuery(darkpool, 'AAPL', q),
      {},
      { base, upstreamPage: upstreamPageOf(at), skip: at.s ?? 0 },
      filter,
      {
        ...deps,
        windowBudget: { rows: 2000, pages: 20 },
      },
    );
    const found = rest.result.data as Record<string, unknown>[];
    assert.ok(found.length > 0, 'following the cursor reaches the window');
    for (const row of found) {
      const clock = ET.format(new Date(String(row['executed_at'])));
      assert.ok(clock >= '09:30' && clock <= '10:00', `${clock} lies in the window`);
    }
    assert.doesNotMatch(String(rest.result.meta.notice), /not fully read/, 'the read reached past the window start');
  });
});
