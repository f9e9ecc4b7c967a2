/**
 * A `tickers=` filter that left an asked ticker with no row says which, in the answer's
 * notice, whoever applied the filter (the upstream's screener, this server's row filter
 * over lit prints), and claims nothing beyond the rows read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tickerOf } from '../../src/mcp/reading/field-roles.js';
import { withSession, type Session } from '../helpers/answers-harness.js';

/** A ticker the tool's unfiltered answer has a row for. */
async function someTicker(session: Session, tool: string): Promise<string> {
  const rows = (await session.answer(tool, { limit: 5 })).data as Record<string, unknown>[];
  const ticker = tickerOf(rows[0]);
  assert.ok(ticker !== undefined, `${tool} rows name a ticker`);
  return ticker;
}

for (const tool of ['shorts_short_screener', 'stocks_lit_trades_recent']) {
  test(`${tool}: a ticker the filter found no row for is named in the notice, one with rows is not`, async () => {
    await withSession({}, async (session) => {
      const alone = await session.answer(tool, { tickers: 'ZZZZ' });
      // An upstream that keys its rows by ticker (seed 841) answers an object whose keys say which it holds: nothing to add.
      if (!Array.isArray(alone.data)) return;
      assert.deepEqual(alone.data, []);
      assert.match(String(alone.meta['notice']), /No row for ZZZZ in the rows read\./);

      const known = await someTicker(session, tool);
      const mixed = await session.answer(tool, { tickers: `${known},ZZZZ` });
      const notice = String(mixed.meta['notice']);
      assert.match(notice, /No row for ZZZZ in the rows read\./);
      assert.doesNotMatch(notice, new RegExp(`No row for[^.]*\\b${known.replace('.', '\\.')}\\b`));

      const found = await session.answer(tool, { tickers: known });
      assert.doesNotMatch(JSON.stringify(found.meta), /No row for/);
    });
  });
}

test('a page read on with a cursor names no ticker as missing: its rows may all have been on the pages before', async () => {
  await withSession({}, async (session) => {
    const tool = 'stocks_lit_trades_recent';
    const known = await someTicker(session, tool);
    const first = await session.answer(tool, { tickers: `${known},ZZZZ`, limit: 1 });
    assert.match(String(first.meta['notice']), /No row for ZZZZ in the rows read\./, 'the first page says it');
    const cursor = first.meta['next_cursor'];
    assert.ok(typeof cursor === 'string', `a cursor after one row: ${JSON.stringify(first.meta)}`);
    const next = await session.answer(tool, { tickers: `${known},ZZZZ`, limit: 1, cursor });
    assert.doesNotMatch(JSON.stringify(next.meta), /No row for/, 'a later page does not');
  });
});
