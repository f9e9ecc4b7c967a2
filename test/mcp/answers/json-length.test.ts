/**
 * The bound that lets a page that fits the budget be measured whole: when it says a value's
 * JSON is not longer than a limit, it is not, whatever the value holds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { jsonMayBeLongerThan } from '../../../src/mcp/answers/json-length.js';

test('a value the bound calls short is short: its JSON is within the limit', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 400 }), (value, limit) => {
      if (!jsonMayBeLongerThan(value, limit)) assert.ok((JSON.stringify(value) ?? '').length <= limit);
    }),
    { numRuns: 2000 },
  );
});

test('a page of numbers well within the limit is called short, one far over it long', () => {
  const row = { date: '2026-11-20', call_volume: 21_345_678, put_call_ratio: 0.83, source: 'tape' };
  assert.equal(
    jsonMayBeLongerThan(
      Array.from({ length: 30 }, () => row),
      64 * 1024,
    ),
    false,
  );
  assert.equal(
    jsonMayBeLongerThan(
      Array.from({ length: 3000 }, () => row),
      64 * 1024,
    ),
    true,
  );
});
