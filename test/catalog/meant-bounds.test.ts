/**
 * A bound a document never gave is not told to the agent: zod's `.int()` writes
 * ±9007199254740991 where the upstream's document says no minimum or maximum, and the
 * new-user trial found it in tool text ("≥ -9007199254740991") and refusals.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as fc from 'fast-check';
import * as z from 'zod';
import { DATASETS, paramJsonSchema, validateAgentParam } from '../../src/catalog/index.js';
import { portableProperty } from '../../src/mcp/arguments/portable-constraints.js';

const dataset = DATASETS[0];
assert.ok(dataset);

test('an integer parameter with bounds left open, or one of them given, tells only the bounds given', () => {
  fc.assert(
    fc.property(fc.option(fc.integer({ min: -1000, max: 1000 })), fc.option(fc.integer({ min: 1001, max: 100_000 })), (min, max) => {
      let schema = z.coerce.number().int();
      if (min !== null) schema = schema.min(min);
      if (max !== null) schema = schema.max(max);
      const described = portableProperty(paramJsonSchema(schema.describe('Rows to return.')).schema);
      const text = JSON.stringify(described);
      const refusal = validateAgentParam(dataset, 'limit', schema, [1, 2]);
      assert.equal(refusal.ok, false);
      const told = refusal.ok ? '' : `${refusal.refusal.message} ${refusal.refusal.hint}`;
      for (const said of [text, told]) assert.doesNotMatch(said, /9007199254740991/, said);
      if (min !== null) assert.match(text, new RegExp(String(min)), 'a minimum given is told');
      if (max !== null) assert.match(text, new RegExp(String(max)), 'a maximum given is told');
    }),
  );
});
