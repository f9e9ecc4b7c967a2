/**
 * Texts that misled an agent (issue 32), read through the built server against the default
 * simulator and its dialects: the dealer tool's refusal of a ticker it covers in no spelling
 * says what it covers; a cursor carries the `fields` of the call that made it; a cached
 * answer reports the quota as the server knows it now, not as it was when cached.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATASETS } from '../../src/catalog/index.js';
import { dialectFromEnv } from '../../src/simulator/dialect.js';
import { listPaging } from '../../src/simulator/dialect-lists.js';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';

type Answer = { data: unknown; meta: Record<string, unknown> };

test('the dealer tool refuses BRK.B and a 6-letter ticker by saying what it covers, not as a spelling to fix', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    for (const ticker of ['BRK.B', 'ABCDEF']) {
      const result = await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker } });
      const error = errorOf(result);
      assert.equal(error.code, 'TICKER_INVALID', 'the API code for the pattern');
      assert.equal(error.action, 'do_not_retry', `${ticker}: no spelling helps`);
      assert.match(error.message, /covers tickers of 1 to 5 letters/);
      assert.match(error.message, /SPY/);
      assert.doesNotMatch(textOf(result), /Fix the arguments|fix the ticker spelling|Use "/i, ticker);
    }
    // A spelling that would be covered is still told how to fix it.
    const lower = errorOf(await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'spy' } }));
    assert.equal(lower.action, 'fix_input');
    assert.match(lower.hint ?? '', /use "SPY"/);
  } finally {
    await close();
  }
});

/** The rows of the directory one call can bring, as the dialect serves it: an upstream without paging cuts its list. */
function rowsServed(asked: number): number {
  const directory = DATASETS.find((d) => d.operationId === 'stocks.ticker_exchanges');
  assert.ok(directory);
  const paging = listPaging(dialectFromEnv(), directory);
  return paging?.kind === 'none' && paging.cut !== null ? Math.min(paging.cut, asked) : asked;
}

test("a cursor carries the call's fields: page two comes in the columns page one did", async () => {
  // The smallest result budget (about 17 rows of two fields): less than any dialect serves a
  // call (one without paging cuts its lists at 20 rows or more), so the answer is cut here,
  // and hands back a cursor, whatever the upstream's page.
  const { client, close } = await connectV2({ args: ['--demo'], env: { MARKET_DATA_RESULT_TOKENS: '500' } });
  try {
    const fields = ['ticker', 'exchange'];
    const first = (await client.callTool({ name: 'stocks_ticker_exchanges', arguments: { limit: 500, fields } }))
      .structuredContent as Answer;
    const served = rowsServed(500);
    assert.ok(Array.isArray(first.data) && first.data.length < served, `the budget cut the ${served} rows the upstream serves a call`);
    const cursor = first.meta['next_cursor'];
    assert.equal(typeof cursor, 'string', 'the first page was cut and continues');
    const second = await client.callTool({ name: 'stocks_ticker_exchanges', arguments: { cursor } });
    assert.notEqual(second.isError, true, textOf(second));
    const rows = (second.structuredContent as Answer).data as Record<string, unknown>[];
    assert.ok(rows.length > 0);
    const extra = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => !fields.includes(k));
    assert.deepEqual(extra, [], 'page two keeps to the fields of page one');
    // Repeating them with the cursor agrees; other fields with it are refused, not mixed.
    const same = await client.callTool({ name: 'stocks_ticker_exchanges', arguments: { cursor, fields } });
    assert.notEqual(same.isError, true, textOf(same));
    const other = errorOf(await client.callTool({ name: 'stocks_ticker_exchanges', arguments: { cursor, fields: ['ticker'] } }));
    assert.equal(other.code, 'VALIDATION_ERROR');
    assert.match(other.message, /"fields" differs/);
  } finally {
    await close();
  }
});

test('a cached answer reports the quota as known now, not as it was when cached', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const call = async (name: string, args: Record<string, unknown>): Promise<Answer['meta']> => {
      const result = await client.callTool({ name, arguments: args });
      assert.notEqual(result.isError, true, textOf(result));
      return (result.structuredContent as Answer).meta;
    };
    const first = await call('shorts_short_screener', { tickers: 'GME' });
    const other = await call('volatility_anomaly', { ticker: 'SPY' });
    const again = await call('shorts_short_screener', { tickers: 'GME' });
    assert.equal(again['units'], 0, 'served from the cache');
    if (other['quota_remaining'] === undefined) {
      // An upstream that sends no quota headers (the vendor dialect): nothing newer is known.
      assert.equal(again['quota_remaining'], first['quota_remaining']);
      return;
    }
    assert.ok(Number(other['quota_remaining']) < Number(first['quota_remaining']), 'the second dataset spent a unit');
    assert.equal(
      again['quota_remaining'],
      other['quota_remaining'],
      "the cached answer says the quota left now, after the other call's unit",
    );
  } finally {
    await close();
  }
});
