/**
 * An upstream may write its numbers as text (`"size": "5000"`): the filters done on this
 * side and the batch tools read them as the numbers they are, rather than as missing (every
 * print failed a size filter, a screen sorted on nothing, and a dealer comparison found no
 * snapshot at all).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATASETS, type DatasetDefinition } from '../../src/catalog/index.js';
import { rowFilterOf } from '../../src/mcp/reading/row-filters.js';
import fc from 'fast-check';
import { num } from '../../src/mcp/tools/fan-out.js';
import { levelsOf } from '../../src/mcp/tools/dealer-compare.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

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

/** Every number of a payload written as text, as an upstream with `numbers=strings` sends it. */
function asText(value: unknown): unknown {
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(asText);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asText(v)]));
  return value;
}

test('the dealer comparison reads a snapshot written with numbers as text as the same levels, for any levels', () => {
  const usd = fc.double({ min: 1, max: 5000, noNaN: true }).map((v) => Math.round(v * 100) / 100);
  fc.assert(
    fc.property(usd, usd, usd, usd, fc.integer({ min: -5e10, max: 5e10 }), (spot, flip, king, wall, total) => {
      const snapshot = {
        ticker: 'SPY',
        snapshot_at: '2026-11-20T16:00:00-05:00',
        session_date_et: '2026-11-20',
        state: 'closed',
        spot_usd: spot,
        strikes: [{ strike_usd: king, net_gex_usd: total, node_type: 'king', rank: 1, relative_strength: 1 }],
        summary: {
          total_gex_usd: total,
          king_strike_usd: king,
          gamma_flip_usd: flip,
          call_wall_strike_usd: wall,
          put_wall_strike_usd: king,
          major_positive_strike_usd: wall,
          major_negative_strike_usd: king,
        },
      };
      const levels = levelsOf('SPY', [snapshot]);
      assert.ok(levels, 'the snapshot as JSON numbers');
      assert.equal(levels['regime'], spot >= flip ? 'positive_gamma' : 'negative_gamma');
      assert.deepEqual(levelsOf('SPY', [asText(snapshot)]), levels, 'the same snapshot with its numbers as text');
    }),
  );
});
