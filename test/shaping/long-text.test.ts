/**
 * A text value longer than the answer passes on is cut and said to be: `truncated` and a
 * notice naming how many were cut and the longest, never a silent "…" (trial of issue 19).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, textOf } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

test('text values longer than 2,000 characters come back cut, with truncated and a notice that says so', async () => {
  await withFakeUpstream(async (fake) => {
    const long = 'x'.repeat(5000);
    fake.answer = () => ({
      body: {
        data: [
          { ticker: 'AAPL', note: long },
          { ticker: 'MSFT', note: 'short' },
          { ticker: 'NVDA', note: long },
        ],
      },
    });
    const server = await connectV2({ baseUrl: fake.url, key: 'fake-key-0123456789' });
    try {
      const result = await server.client.callTool({ name: 'stocks_lit_trades_recent', arguments: {} });
      assert.notEqual(result.isError, true, textOf(result));
      const answer = JSON.parse(textOf(result)) as {
        data: { note: string }[];
        meta: { truncated: boolean; has_more?: boolean; more_rows?: string; notice: string | null };
      };
      const notes = answer.data.map((row) => row.note);
      assert.ok(notes.includes('short'), 'a short value is passed on whole');
      const cut = notes.filter((note) => note !== 'short');
      assert.ok(cut.length === 2 && cut.every((note) => note.length <= 2000 && note.endsWith('…')), 'the long values are cut');
      assert.equal(answer.meta.truncated, true, 'the answer says it is not whole');
      // Cut inside rows, none left out: nothing more to read, and no advice to ask a larger
      // limit (trial: has_more and "the API holds more rows than limit=100 returned").
      assert.equal(answer.meta.has_more, false, 'no rows remain');
      assert.equal(answer.meta.more_rows, undefined);
      assert.match(answer.meta.notice ?? '', /2 text values were longer than 2,000 characters \(the longest 5,000\)/);
    } finally {
      await server.close();
    }
  });
});
