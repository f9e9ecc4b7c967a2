/** What a call over several names says when none of its parts was answered (mcp/tools/compare-failures.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { partDeadlinePassed } from '../../../src/api/deadline-error.js';
import { apiError } from '../../../src/api/errors.js';
import { noneAnswered } from '../../../src/mcp/tools/compare-failures.js';

test('parts still out at the deadline are not said to have cost nothing; parts never sent, or refused, are', () => {
  const out = noneAnswered(
    'None of the 2 tickers was answered',
    [
      { name: 'SPY', error: partDeadlinePassed('ticker', true) },
      { name: 'QQQ', error: partDeadlinePassed('ticker', true) },
    ],
    0,
  );
  assert.equal(
    out.message,
    'None of the 2 tickers was answered (SPY DEADLINE_EXCEEDED, QQQ DEADLINE_EXCEEDED); cost not known: a part was still out.',
  );
  assert.equal(out.charged, undefined);
  const unsent = noneAnswered('Nothing was answered', [{ name: 'SPY', error: partDeadlinePassed('ticker') }], 0);
  assert.match(unsent.message, /; no unit spent\.$/);
  assert.equal(unsent.charged, false);
  const refused = noneAnswered('Nothing was answered', [{ name: 'SPY', error: apiError('SCOPE_INSUFFICIENT') }], 0);
  assert.match(refused.message, /; no unit spent\.$/);
});
