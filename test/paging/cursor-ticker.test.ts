/**
 * A cursor of a tool that takes a ticker, followed without the ticker: the trimmed page says
 * "ticker and cursor are enough", and an agent that sends the cursor alone is told which
 * ticker to add, not that its cursor (passed exactly as given) is invalid.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, errorOf } from '../helpers/mcp.js';

test('a ticker cursor followed alone is told the ticker it needs; with it, the next page comes', async () => {
  const { client, close } = await connectV2({ args: ['--demo'], env: { MARKET_DATA_RESULT_TOKENS: '500' } });
  try {
    const first = await client.callTool({ name: 'darkpool_by_ticker', arguments: { ticker: 'AAPL' } });
    const meta = (first.structuredContent as { meta: { next_cursor?: string; trimmed?: { how_to_get_more: string } } }).meta;
    assert.ok(meta.next_cursor, 'a trimmed first page offers a cursor');
    assert.match(meta.trimmed?.how_to_get_more ?? '', /ticker and cursor are enough/);
    const alone = errorOf(await client.callTool({ name: 'darkpool_by_ticker', arguments: { cursor: meta.next_cursor } }));
    assert.equal(alone.code, 'VALIDATION_ERROR');
    assert.equal(alone.message, '"ticker" is missing: this cursor was issued for AAPL.');
    assert.equal(alone.hint, 'Call again with ticker "AAPL" and the same cursor.');
    const next = await client.callTool({ name: 'darkpool_by_ticker', arguments: { ticker: 'AAPL', cursor: meta.next_cursor } });
    assert.notEqual(next.isError, true);
    const other = errorOf(await client.callTool({ name: 'darkpool_by_ticker', arguments: { ticker: 'MSFT', cursor: meta.next_cursor } }));
    assert.match(other.message, /belongs to another ticker/);
  } finally {
    await close();
  }
});
