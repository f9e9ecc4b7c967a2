/**
 * An early dark-pool time window (09:30-10:00 ET of a full session), through the built
 * binary, in every dialect: the first answer reads back far enough to hold the window's
 * prints (a session is ~770 prints: 2 pages of 500, or 16 of the vendor's 50), and no
 * answer that shows none of the window while more remains leaves the agent to guess: it
 * says the window is not fully read and to follow next_cursor. Following the cursors gives
 * exactly the window's prints as the upstream pages them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DIALECT_NAMES } from '../../src/simulator/dialect.js';
import { clockOf, sessionPages, type Row } from '../helpers/darkpool-session.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';
import { lastFullSession } from '../helpers/sessions.js';

interface Answer {
  data: Row[];
  meta: { has_more?: boolean; next_cursor?: string; notice?: string; units?: number };
}
const inWindow = (row: Row): boolean => clockOf(row) >= '09:30' && clockOf(row) <= '10:00';

for (const dialect of DIALECT_NAMES) {
  test(`${dialect}: an early dark-pool window is answered in the first call, and an answer short of it says to read on`, async () => {
    await withSimulator({ dialect }, async (sim) => {
      const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
      try {
        const day = lastFullSession();
        const expected = (await sessionPages(sim, day)).flat().filter(inWindow);
        assert.ok(expected.length > 0, 'the window holds prints');
        const answers: Answer[] = [];
        let args: Record<string, unknown> = {
          ticker: 'AAPL',
          session_date: day,
          from_time: '09:30',
          to_time: '10:00',
          fields: ['executed_at', 'size'],
          limit: 500,
        };
        for (let call = 0; call < 8; call += 1) {
          const result = await client.callTool({ name: 'darkpool_by_ticker', arguments: args });
          assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
          const answer = result.structuredContent as Answer;
          answers.push(answer);
          if (answer.data.length === 0 && answer.meta.has_more === true)
            assert.match(
              String(answer.meta.notice),
              /not fully read.*next_cursor/,
              `call ${call + 1}: no print of the window and more remain, so the answer must say to read on`,
            );
          if (answer.meta.next_cursor === undefined) break;
          args = { ticker: 'AAPL', cursor: answer.meta.next_cursor };
        }
        const first = answers[0];
        assert.ok(first);
        assert.ok(
          first.data.some(inWindow),
          `the first answer reads back to the window: ${answers.map((a) => `${a.data.length} rows, ${String(a.meta.units)} units`).join('; ')}`,
        );
        assert.deepEqual(
          answers.flatMap((a) => a.data.map((r) => r['executed_at'])),
          expected.map((r) => r['executed_at']),
          'exactly the prints of the window, none skipped or repeated',
        );
      } finally {
        await close();
      }
    });
  });
}
