/**
 * An answer both cut for the token budget and short of rows the API holds past its limit
 * says one thing in its meta: `more_rows` is about the API (rows past those it sent, and
 * how to reach them), `trimmed` about this answer (the rows it sent that were cut here, and
 * the cursor that reads exactly those); neither names a filter or limit the other names,
 * and the two together cost no more tokens than they did when they overlapped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tokens, withSession, type Answer } from '../helpers/answers-harness.js';

interface Trimmed {
  rows_returned: number;
  rows_left: number;
  how_to_get_more: string;
}

const rowsOf = (answer: Answer): unknown[] => (Array.isArray(answer.data) ? answer.data : []);

test('more_rows speaks of the rows past those the API sent, trimmed of the sent rows cut here: one story, no word twice', async () => {
  await withSession(
    { MARKET_DATA_RESULT_TOKENS: '600' },
    async (session) => {
      const first = await session.answer('congress_recent_trades', { limit: 20 });
      const moreRows = first.meta['more_rows'];
      const trimmed = first.meta['trimmed'] as Trimmed | undefined;
      assert.equal(typeof moreRows, 'string', `the spec's list stops at the limit with no cursor: ${JSON.stringify(first.meta)}`);
      assert.ok(trimmed, 'twenty trades do not fit 600 tokens');
      const more = String(moreRows);
      const how = trimmed.how_to_get_more;

      // more_rows offers a larger limit; trimmed does not pull the other way, nor repeat the filters.
      assert.match(more, /larger limit/, more);
      assert.doesNotMatch(how, /\blimit\b/, how);
      // As a list names them ("narrow with from, to, tickers"), not "to fit".
      for (const filter of ['chamber', 'side', 'tickers', 'from', 'to']) {
        const said = `${more} ${how}`.match(new RegExp(`(?:with |, )${filter}(?=[,.;])`, 'g'))?.length ?? 0;
        assert.equal(said, 1, `${filter} named once: ${more} | ${how}`);
      }
      // more_rows speaks of what the API sent (20), not of what this answer shows.
      assert.doesNotMatch(more, /returned/, more);
      // trimmed names the rows the cursor reads: exactly those it left out.
      assert.match(how, new RegExp(`next_cursor .* the other ${trimmed.rows_left} the API sent`), how);
      assert.ok(tokens({ more_rows: more, trimmed }) <= 100, `${tokens({ more_rows: more, trimmed })} tokens`);

      // Following the cursor reads those rows and no others; the last page still says the API holds more.
      let shown = rowsOf(first).length;
      let answer = first;
      for (let page = 0; page < 20 && typeof answer.meta.next_cursor === 'string'; page += 1) {
        answer = await session.answer('congress_recent_trades', { cursor: answer.meta.next_cursor });
        shown += rowsOf(answer).length;
      }
      assert.equal(shown, trimmed.rows_returned + trimmed.rows_left, 'the cursor read what trimmed said it would');
      assert.equal(answer.meta.next_cursor, undefined);
      assert.equal(typeof answer.meta['more_rows'], 'string', 'and the rows past the limit are still said to exist');
    },
    'sim-live-key',
    { dialect: 'spec' },
  );
});
