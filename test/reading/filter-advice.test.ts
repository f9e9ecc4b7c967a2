/**
 * The advice of a filtered call (lit prints by ticker) never offers what the call just did
 * nor a limit the API's response ceiling refuses; `limit` counts the rows that match, so a
 * small limit gets that many matching rows, not a unit spent on none. What is left unread is
 * said as the upstream's document allows: its next pages behind next_cursor where it pages
 * the list, else that older rows cannot be read (it flags the cut) or that the list may not
 * be whole (it says nothing).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATASETS } from '../../src/catalog/index.js';
import { dialectFromEnv } from '../../src/simulator/dialect.js';
import { listPaging } from '../../src/simulator/dialect-lists.js';
import { connectV2 } from '../helpers/mcp.js';

interface Answer {
  data: { ticker: string }[];
  meta: { has_more?: boolean; next_cursor?: string };
}

/** How the upstream the demo serves (MARKET_DATA_SIM_DIALECT, else the spec's reading) pages the lit prints. */
function litPaging(): 'pages' | 'cut-flagged' | 'cut-unsaid' | 'whole' {
  const lit = DATASETS.find((d) => d.operationId === 'stocks.lit_trades_recent');
  assert.ok(lit);
  const paging = listPaging(dialectFromEnv(), lit);
  assert.ok(paging, 'the lit prints are a list');
  if (paging.kind !== 'first-rows' && paging.kind !== 'none') return 'pages';
  if (!paging.flag) return 'cut-unsaid';
  return paging.kind === 'none' && paging.cut === null ? 'whole' : 'cut-flagged';
}

test('filter advice: nothing the call just did, no limit over the ceiling; limit counts the rows that match', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const call = async (args: Record<string, unknown>): Promise<{ answer: Answer; text: string }> => {
      const result = await client.callTool({ name: 'stocks_lit_trades_recent', arguments: args });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
      return { answer: result.structuredContent as Answer, text: JSON.stringify(result.structuredContent) };
    };
    const whole = await call({ tickers: 'AAPL' });
    assert.doesNotMatch(whole.text, /ask without limit/, 'the call set no limit: that advice repeats it');
    assert.doesNotMatch(whole.text, /up to 5000/, 'a limit over the response-size ceiling is not offered');

    const paging = litPaging();
    const cannotRead = /older rows cannot be read through this API/;
    const mayNotBeWhole = /may not be the whole list/;
    if (paging === 'pages') {
      assert.doesNotMatch(whole.text, cannotRead, 'the upstream pages the list: older rows can be read');
      if (whole.answer.meta.has_more === true) assert.ok(whole.answer.meta.next_cursor, 'what is left is behind next_cursor');
      else assert.doesNotMatch(whole.text, mayNotBeWhole, 'the upstream said where its list ends');
    } else if (paging === 'cut-flagged') assert.match(whole.text, cannotRead, 'what is left is said');
    else if (paging === 'cut-unsaid') assert.match(whole.text, mayNotBeWhole, 'that some may be left is said');
    else assert.equal(whole.answer.meta.has_more, false, 'the whole list was read');

    // Three of the rows that match, or as many as the upstream holds within reach (no way on)
    // when fewer; an answer whose budget of upstream pages ends first offers the rest behind
    // next_cursor, and no answer holds more than the limit.
    const few: string[] = [];
    let next: Answer = (await call({ tickers: 'AAPL', limit: 3 })).answer;
    assert.ok(next.data.length <= 3, 'no more rows than the limit');
    few.push(...next.data.map((row) => row.ticker));
    for (let followed = 0; few.length < 3 && next.meta.next_cursor !== undefined && followed < 5; followed += 1) {
      next = (await call({ cursor: next.meta.next_cursor })).answer;
      assert.ok(next.data.length <= 3, 'the cursor reads on at the same limit');
      few.push(...next.data.map((row) => row.ticker));
    }
    const within = whole.answer.meta.next_cursor === undefined ? Math.min(3, whole.answer.data.length) : 3;
    assert.deepEqual(
      few.slice(0, 3),
      Array.from({ length: within }, () => 'AAPL'),
      'three matching rows, or every one the upstream offers',
    );
  } finally {
    await close();
  }
});
