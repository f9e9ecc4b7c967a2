/**
 * A cursor copied with whitespace around it (a trailing newline, a leading space: what a
 * model often writes when it repeats a long token) is the same cursor: it was passed as
 * given, and a refusal as "not one this server issued" sent the agent back to the start.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, textOf } from '../helpers/mcp.js';

interface Page {
  data: unknown;
  meta: { next_cursor?: string };
}

test('a cursor with whitespace around it reads the same next page as the cursor itself, on a dataset tool and on the dealer tool', async () => {
  const { client, close } = await connectV2({ args: ['--demo'], env: { MARKET_DATA_RESULT_TOKENS: '500', MARKET_DATA_LOG_LEVEL: 'warn' } });
  try {
    for (const [name, ticker] of [
      ['darkpool_by_ticker', 'AAPL'],
      ['derived_dealer_gex_history', 'SPY'],
    ] as const) {
      const first = (await client.callTool({ name, arguments: { ticker } })).structuredContent as Page;
      const cursor = first.meta.next_cursor;
      assert.ok(cursor, `${name}: a trimmed first page offers a cursor`);
      const exact = await client.callTool({ name, arguments: { ticker, cursor } });
      assert.notEqual(exact.isError, true, textOf(exact));
      for (const copied of [`${cursor}\n`, ` ${cursor}`, `\t${cursor} \n`]) {
        const next = await client.callTool({ name, arguments: { ticker, cursor: copied } });
        assert.notEqual(
          next.isError,
          true,
          `${name} with ${JSON.stringify(copied.replace(cursor, '<cursor>'))}: ${textOf(next).slice(0, 300)}`,
        );
        assert.deepEqual((next.structuredContent as Page).data, (exact.structuredContent as Page).data, `${name}: the same next page`);
      }
    }
  } finally {
    await close();
  }
});
