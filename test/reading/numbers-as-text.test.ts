/**
 * An upstream may write its numbers as text (`"size": "5000"`): the filters done on this
 * side and the batch tools read them as the numbers they are, rather than as missing (every
 * print failed a size filter, and a screen sorted on nothing).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATASETS, type DatasetDefinition } from '../../src/catalog/index.js';
import { rowFilterOf } from '../../src/mcp/reading/row-filters.js';
import { num } from '../../src/mcp/tools/fan-out.js';

const named = (operationId: string): DatasetDefinition => {
  const found = DATASETS.find((d) => d.operationId === operationId);
  assert.ok(found, operationId);
  return found;
};

test('row filters read numeric text as numbers: prints by size and notional, OI changes by direction', () => {
  const prints = rowFilterOf(named('darkpool.by_ticker'), { min_size: 5000, min_notional_usd: 1_000_000 });
  assert.ok(prints);
  assert.equal(prints.keep({ size: '6000', notional_usd: '1200000.5' }), true, 'a large print written as text');
  assert.equal(prints.keep({ size: '400', notional_usd: '1200000.5' }), false, 'a small one');
  assert.equal(prints.keep({ size: 'n/a', notional_usd: '1200000.5' }), false, 'text that is no number');
  const falling = rowFilterOf(named('market.oi_change'), { direction: 'decrease' });
  assert.ok(falling);
  assert.deepEqual(
    [{ oi_change: '-1200' }, { oi_change: '300' }].map((row) => falling.keep(row)),
    [true, false],
  );
});

test('batch tools read a field written as numeric text as its number', () => {
  assert.equal(num({ short_ratio: '0.42' }, 'short_ratio'), 0.42);
  assert.equal(num({ short_ratio: 'n/a', ratio: 0.5 }, 'short_ratio', 'ratio'), 0.5);
  assert.equal(num({}, 'short_ratio'), undefined);
});
