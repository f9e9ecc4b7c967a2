/**
 * The advice of a filtered call (lit prints by ticker, OI changes by direction) never
 * offers what the call just did, and says that `limit` counts the rows read before the
 * filter, so a call that spent a unit on 0 matches knows why and what to ask next.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2 } from '../helpers/mcp.js';

test('filter advice: no "ask without limit" after a call without limit; limit counts the rows read', async () => {
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

    const few = await text('stocks_lit_trades_recent', { tickers: 'AAPL', limit: 3 });
    assert.match(few, /limit=3 counts the rows read, before the filter/);
    assert.match(few, /ask without limit/);
  } finally {
    await close();
  }
});
