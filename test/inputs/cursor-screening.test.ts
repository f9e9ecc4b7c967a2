/**
 * Arguments are screened once, as they arrive; a cursor of ours brings back the query of
 * its first page, which is input from the agent again (it is only base64 JSON), so its
 * names are screened as it is opened: a forged one reaches no upstream.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodePageCursor } from '../../src/mcp/arguments/cursor.js';
import { withSession } from '../helpers/answers-harness.js';

const textOf = (result: { content?: unknown }): string =>
  Array.isArray(result.content) ? result.content.map((c: { text?: string }) => c.text ?? '').join('\n') : '';

test('a cursor of ours whose query carries a name the tool does not take is refused before any request', async () => {
  await withSession({}, async (session) => {
    const forged = encodePageCursor({ o: 'congress.recent_trades', q: { colour: 'red' }, s: 1 });
    const before = session.sim.api.requests.length;
    const result = await session.call('congress_recent_trades', { cursor: forged });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /VALIDATION_ERROR: Unknown parameter "colour"/);
    assert.equal(session.sim.api.requests.length, before, 'nothing was sent upstream');
    // The same cursor with a query the tool takes is followed.
    const honest = encodePageCursor({ o: 'congress.recent_trades', q: { limit: 5 }, s: 1 });
    const followed = await session.call('congress_recent_trades', { cursor: honest });
    assert.notEqual(followed.isError, true, textOf(followed));
  });
});
