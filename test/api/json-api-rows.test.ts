/** JSON:API resources read as rows: the id and attributes side by side, only where the list has the resource shape. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { payloadParts } from '../../src/api/payload-parts.js';

const name = fc.string({ minLength: 1, maxLength: 12 }).filter((key) => key !== '__proto__' && key !== 'id');
const value = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null));
const resource = fc.record({
  id: fc.string({ minLength: 1, maxLength: 8 }),
  type: fc.constantFrom('dividend', 'trade'),
  attributes: fc.dictionary(name, value, { maxKeys: 6 }),
});

test('a JSON:API document {data: [{id, type, attributes}], links, meta} answers rows of id and attributes', () => {
  fc.assert(
    fc.property(fc.array(resource, { minLength: 1, maxLength: 5 }), (resources) => {
      const parts = payloadParts({ data: resources, links: { self: '/v1/x', next: null }, meta: { total: 45 } });
      const rows = resources.map((r) => ({ id: r.id, ...r.attributes }));
      assert.deepEqual(parts.data, rows, 'every attribute is a field of its row');
      assert.deepEqual(parts.rows, rows);
    }),
  );
});

test('relationships become the ids they name; one resource alone is one record; rows that only look alike are left whole', () => {
  const parts = payloadParts({
    data: [
      {
        type: 'dividend',
        id: 'D1',
        attributes: { ex_date: '2026-11-25', amount_usd: 0.26 },
        relationships: { issuer: { data: { type: 'company', id: 'AAPL' } }, filings: { data: [{ type: 'filing', id: 'F1' }] } },
        links: { self: '/v1/dividends/D1' },
      },
    ],
  });
  assert.deepEqual(parts.rows, [{ id: 'D1', ex_date: '2026-11-25', amount_usd: 0.26, issuer: 'AAPL', filings: ['F1'] }]);
  const one = payloadParts({ data: { type: 'rate', id: 'EUR/USD', attributes: { rate: 1.08 } }, meta: { request_id: 'r' } });
  assert.deepEqual(one.data, { id: 'EUR/USD', rate: 1.08 });
  // A row of ours with a `type` and an `id` beside other fields is not a resource.
  const plain = [{ id: 'T1', type: 'buy', attributes: { note: 'x' }, ticker: 'AAPL' }];
  assert.deepEqual(payloadParts({ data: plain }).rows, plain);
});
