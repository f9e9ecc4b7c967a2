/**
 * The upstream filters read the fields the generators really emit: every catalog filter has
 * a declared row field, the rows carry it valued as the catalog documents, and a row
 * without it fails loudly instead of filtering everything out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CONGRESS_SIDES, DATASETS, tickerFilter } from '../../src/catalog/index.js';
import { latestSession } from '../../src/catalog/market-calendar.js';
import { catalogGenerator } from '../../src/simulator/generators/index.js';
import { applyQueryFilters, undeclaredFilters } from '../../src/simulator/query-filters.js';
import { rows } from '../helpers/market.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

const clock = fc.integer({ min: Date.parse('2024-03-01'), max: Date.parse('2027-06-30') });

function context(now: number, query: Record<string, string | number>) {
  return { seed: 7, now, session: latestSession(now), symbol: undefined, query };
}

test('every catalog filter has a row field declared by its generator; one with none is reported', () => {
  assert.deepEqual(undeclaredFilters(DATASETS), []);
  const darkpool = DATASETS.find((d) => d.operationId === 'darkpool.by_ticker');
  assert.ok(darkpool);
  assert.deepEqual(undeclaredFilters([{ ...darkpool, query: { ...darkpool.query, tickers: tickerFilter } }]), [
    'darkpool.by_ticker tickers',
  ]);
});

test('side and disclosure dates select exactly the rows of the largest unfiltered page that match, whatever the clock', () => {
  const generate = catalogGenerator('congress.recent_trades');
  fc.assert(
    fc.property(clock, fc.constantFrom(...CONGRESS_SIDES), (now, side) => {
      const all = rows(generate(context(now, { limit: 500 })));
      for (const row of all) assert.ok((CONGRESS_SIDES as readonly unknown[]).includes(row['side']), String(row['side']));
      const dates = [...new Set(all.map((r) => String(r['disclosed_on'])))];
      const to = dates[2] ?? '';
      const from = dates[12] ?? '';
      const filtered = rows(applyQueryFilters('congress.recent_trades', context(now, { side, from, to, limit: 500 }), generate));
      const expected = all.filter((r) => r['side'] === side && String(r['disclosed_on']) >= from && String(r['disclosed_on']) <= to);
      assert.ok(expected.length > 0, 'the window holds trades of that side');
      assert.deepEqual(filtered, expected);
    }),
    { numRuns: 15 },
  );
});

test('a generated row without the field a filter reads fails loudly instead of matching nothing', () => {
  const now = Date.parse('2026-11-18T20:00:00Z');
  const renamed = () => ({ data: [{ ticker: 'AAPL', side: 'buy', disclosure_date: '2026-11-18' }], asOf: now });
  assert.throws(
    () => applyQueryFilters('congress.recent_trades', context(now, { from: '2026-11-01' }), renamed),
    /from filter reads "disclosed_on"/,
  );
  const noUnderlying = () => ({ data: [{ contract: 'NVDA261218C00150000', ticker: 'NVDA' }], asOf: now });
  assert.throws(() => applyQueryFilters('market.oi_change', context(now, { tickers: 'NVDA' }), noUnderlying), /"underlying"/);
});
