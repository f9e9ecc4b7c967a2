/**
 * The error factory: a call site names the code and what is its own; the message, status and
 * recoverability an agent reads come from the code's row of the error table, written once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiError, cancelledError } from '../../src/api/errors.js';
import { ERROR_TABLE } from '../../src/catalog/index.js';

test("apiError(code) says the table's message, status and recoverability for the code", () => {
  const scope = apiError('SCOPE_INSUFFICIENT').toJSON();
  assert.equal(scope['code'], 'SCOPE_INSUFFICIENT');
  assert.equal(scope['status'], 403);
  assert.equal(scope['message'], 'The API key lacks the scope this endpoint needs.');
  assert.equal(scope['recoverable'], false);

  const rate = apiError('RATE_LIMITED');
  assert.deepEqual([rate.status, rate.recoverable, rate.message, rate.kind], [429, true, ERROR_TABLE.RATE_LIMITED.message, 'RATE_LIMITED']);
  assert.equal(rate.action, ERROR_TABLE.RATE_LIMITED.action);

  const network = apiError('NETWORK_ERROR');
  assert.deepEqual([network.status, network.recoverable, network.local], [null, true, false]);
});

test('what a call site gives wins over the table: message, status, recoverability, and the code shown', () => {
  const late = apiError('RATE_LIMITED', { status: null, message: 'Your turn would come too late.', recoverable: false, local: true });
  assert.deepEqual([late.status, late.message, late.recoverable, late.local], [null, 'Your turn would come too late.', false, true]);

  // A code with no row of its own is shown as given and acts by the row named.
  const budget = apiError('QUOTA_EXHAUSTED', { code: 'USER_BUDGET_EXHAUSTED', hint: 'Ask the operator.', retryAfterSeconds: 30 });
  assert.deepEqual(
    [budget.code, budget.kind, budget.status, budget.recoverable, budget.message, budget.hint, budget.retryAfterSeconds],
    ['USER_BUDGET_EXHAUSTED', 'QUOTA_EXHAUSTED', 429, true, ERROR_TABLE.QUOTA_EXHAUSTED.message, 'Ask the operator.', 30],
  );
});

test('an error copied with changes keeps every other part, the original untouched', () => {
  const first = apiError('DEADLINE_EXCEEDED', { hint: 'Ask for less.', charged: true, local: true, requestId: 'req_1' });
  const later = first.with({ recoverable: false, retryAfterSeconds: 5 });
  assert.deepEqual(
    [later.code, later.message, later.hint, later.charged, later.local, later.requestId, later.recoverable, later.retryAfterSeconds],
    ['DEADLINE_EXCEEDED', ERROR_TABLE.DEADLINE_EXCEEDED.message, 'Ask for less.', true, true, 'req_1', false, 5],
  );
  assert.deepEqual([first.recoverable, first.retryAfterSeconds], [true, undefined]);
});

test('CANCELLED is said once: a caller who left gets the table\'s words; a shutdown, "call again" and recoverable', () => {
  const left = cancelledError();
  assert.deepEqual([left.message, left.recoverable], [ERROR_TABLE.CANCELLED.message, false]);
  const stopped = cancelledError('shutdown');
  assert.equal(stopped.recoverable, true);
  assert.match(stopped.message, /shutting down/);
  assert.match(stopped.hint ?? '', /Call again/);
});
