/**
 * The advice of a filtered call (lit prints by ticker) never offers what the call just did
 * nor a limit the API's response ceiling refuses; `limit` counts the rows that match, so a
 * small limit gets that many matching rows, not a unit spent on none.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2 } from '../helpers/mcp.js';

test('filter advice: nothing the call just did, no limit over the ceiling; limit counts the rows that match', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const text = async (name: string, args: Record<string, unknown>): Promise<string> => {
      const result = await client.callTool({ name, arguments: args });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      return JSON.stringify(result.structuredContent);
    };
    const whole = await text('stocks_lit_trades_recent', { tickers: 'AAPL' });
    assert.doesNotMatch(whole, /ask without limit/, 'the call set no limit: that advice repeats it');
    assert.doesNotMatch(whole, /up to 5000/, 'a limit over the response-size ceiling is not offered');

    assert.match(whole, /older rows cannot be read through this API/, 'what is left is said');

    const few = await client.callTool({ name: 'stocks_lit_trades_recent', arguments: { tickers: 'AAPL', limit: 3 } });
    const rows = (few.structuredContent as { data: { ticker: string }[] }).data;
    assert.deepEqual(
      rows.map((row) => row.ticker),
      ['AAPL', 'AAPL', 'AAPL'],
      'three matching rows',
    );
  } finally {
    await close();
  }
});
