/** Rows, meta and cursor wherever an upstream puts them; a shape not recognised comes back whole. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { payloadParts, rowsIn } from '../../src/api/payload-parts.js';
import { rolesOf } from '../../src/catalog/param-roles.js';

const ROWS = [{ a: 1 }, { a: 2 }];

test('rows under data, results, items, data.rows or a bare array; meta under _meta or meta; cursor under next_cursor or next', () => {
  const shapes: [string, unknown][] = [
    ['{data, _meta}', { data: ROWS, _meta: { next_cursor: 'c1', request_id: 'r' } }],
    ['{results, meta.next}', { results: ROWS, meta: { next: 'c1', request_id: 'r' } }],
    ['{items, next, meta}', { items: ROWS, next: 'c1', meta: { request_id: 'r' } }],
    ['{data: {rows}, meta}', { data: { rows: ROWS }, meta: { next_cursor: 'c1', request_id: 'r' } }],
  ];
  for (const [name, body] of shapes) {
    const parts = payloadParts(body);
    assert.deepEqual(rowsIn(parts.data), ROWS, `${name}: rows`);
    assert.equal(parts.nextCursor, 'c1', `${name}: cursor`);
    assert.equal(parts.meta['request_id'], 'r', `${name}: meta`);
  }
  const bare = payloadParts(ROWS);
  assert.deepEqual(bare.data, ROWS);
  assert.equal(bare.nextCursor, undefined);
});

test('a payload whose shape is not a wrapper comes back whole, less its meta', () => {
  const body = { results: ROWS, summary: { total: 2 }, _meta: { request_id: 'r' } };
  assert.deepEqual(payloadParts(body).data, { results: ROWS, summary: { total: 2 } }, 'results beside other data is data');
  const object = { pairs: [['SPY', 'QQQ', 0.9]], lookback_days: 60 };
  assert.deepEqual(payloadParts(object).data, object);
  assert.deepEqual(
    payloadParts({ data: { rows: ROWS, columns: ['a'] } }).data,
    { rows: ROWS, columns: ['a'] },
    'rows with columns stay whole',
  );
});

test('upstream parameters are recognised by role from their name and type', () => {
  const int = z.number().int();
  const str = z.string();
  assert.deepEqual(rolesOf({ limit: int, cursor: str }), { pageSize: 'limit', cursor: 'cursor' });
  assert.deepEqual(rolesOf({ page_size: int, page_token: str }), { pageSize: 'page_size', cursor: 'page_token' });
  assert.deepEqual(rolesOf({ pageSize: int, pageToken: str }), { pageSize: 'pageSize', cursor: 'pageToken' });
  assert.deepEqual(rolesOf({ cursor: str }), { cursor: 'cursor' });
  assert.deepEqual(rolesOf({ limit: str }), {}, 'a page size that is text is no page size');
  assert.deepEqual(rolesOf({ start_date: str, end_date: str, symbols: str }), {
    rangeStart: 'start_date',
    rangeEnd: 'end_date',
    tickers: 'symbols',
  });
});
