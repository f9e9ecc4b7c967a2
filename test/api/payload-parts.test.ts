/** Rows, meta and cursor wherever an upstream puts them; a shape not recognised comes back whole. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REFERENCE } from '../../src/simulator/reference.js';
import fc from 'fast-check';
import * as z from 'zod';
import { payloadParts, rowsIn } from '../../src/api/payload-parts.js';
import { pagingEvidence } from '../../src/api/paging-evidence.js';
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

test('rows under any wrapper whose other keys are metadata, at any depth; objects keyed by ticker are rows with the ticker put in', () => {
  const shapes: [string, unknown][] = [
    ['polygon', { status: 'OK', request_id: 'r', count: 2, results: ROWS, next_url: 'https://x/v1/a?cursor=c' }],
    ['records', { records: ROWS, total_count: 9 }],
    ['data.rows', { data: { rows: ROWS, total: 9 } }],
    ['bare', ROWS],
    ['stripe', { object: 'list', data: ROWS, has_more: true }],
    ['facebook', { data: ROWS, paging: { cursors: { before: 'b', after: 'a' }, next: 'https://x/n' } }],
    ['deep', { response: { data: { items: ROWS } } }],
  ];
  for (const [name, body] of shapes) assert.deepEqual(payloadParts(body).rows, ROWS, name);
  assert.equal(payloadParts(shapes[0]?.[1]).meta['request_id'], 'r', 'scalars beside the rows are metadata');
  const keyed = payloadParts({ AAPL: { rr25: -0.04 }, MSFT: { rr25: -0.02, ticker: 'MSFT' }, _meta: { request_id: 'r' } });
  assert.deepEqual(keyed.rows, [
    { ticker: 'AAPL', rr25: -0.04 },
    { rr25: -0.02, ticker: 'MSFT' },
  ]);
  const lists = payloadParts({ data: { SPY: [{ d: 1 }, { d: 2 }], QQQ: [{ d: 3 }] } });
  assert.deepEqual(lists.rows, [
    { ticker: 'SPY', d: 1 },
    { ticker: 'SPY', d: 2 },
    { ticker: 'QQQ', d: 3 },
  ]);
  // fastapi-pagination's page: `size` is named in no list, and is metadata all the same.
  const page = payloadParts({ items: ROWS, total: 45, page: 1, size: 20, pages: 3 });
  assert.deepEqual(page.data, ROWS);
  assert.equal(page.meta['size'], 20);
  // Context beside rows, with nothing of paging: it stays with them, the rows found inside.
  const context = payloadParts({ period: '2026-11-14', rows: ROWS });
  assert.deepEqual(context.data, { period: '2026-11-14', rows: ROWS });
  assert.deepEqual(context.rows, ROWS);
  const snapshot = payloadParts({ ticker: 'SPY', spot: 590.1, strikes: ROWS });
  assert.deepEqual(snapshot.data, { ticker: 'SPY', spot: 590.1, strikes: ROWS }, 'one snapshot is not its strikes');
});

/** Names a wrapper's scalars may have: any text, those of objects too (scalars are never metadata objects). */
const scalarName = fc.string({ minLength: 1, maxLength: 12 }).filter((name) => name !== '__proto__');
const scalar = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
const row = fc.dictionary(fc.constantFrom('id', 'ticker', 'ex_date', 'amount_usd'), scalar, { minKeys: 1 });

/** Names that speak of paging or of the answer, as upstreams spell them. */
const pagingName = fc.constantFrom(
  'total',
  'page',
  'count',
  'request_id',
  'total_count',
  'limit',
  'offset',
  'next',
  'nextPageToken',
  'has_more',
  'size',
  'last_page',
);
/** Names of context beside rows (`period`, `symbol`): never a word of paging. */
const contextName = fc.oneof(
  fc.constantFrom('period', 'symbol', 'as_of', 'currency', 'source'),
  fc.string({ maxLength: 8 }).map((s) => `ctx_${s}`),
);

test('one list of records beside scalars: those of paging are metadata, any other context kept beside the rows, which are found either way', () => {
  fc.assert(
    fc.property(
      scalarName,
      fc.array(row, { maxLength: 5 }),
      fc.dictionary(contextName, scalar, { maxKeys: 3 }),
      fc.dictionary(pagingName, scalar, { minKeys: 1, maxKeys: 4 }),
      (listName, rows, context, paging) => {
        fc.pre(!(listName in context) && !(listName in paging) && !Object.keys(context).some((name) => name in paging));
        const parts = payloadParts({ ...context, ...paging, [listName]: rows });
        assert.deepEqual(parts.rows, rows, 'the rows are found');
        const whole = Object.keys(context).length === 0 ? rows : { ...context, [listName]: rows };
        assert.deepEqual(parts.data, whole, 'nothing but paging is taken from the data');
        assert.deepEqual(parts.entries.map((e) => e.name).sort(), Object.keys(paging).sort(), 'every paging scalar is metadata');
      },
    ),
  );
});

test('an object keyed by ticker keeps every ticker as a row, those that spell a metadata name (META, NEXT, PAGE) too', () => {
  // Every ticker the simulator covers, and upper-case words that read as metadata in lower case.
  const tickers = [...new Set([...REFERENCE.map((r) => r.ticker), 'META', 'NEXT', 'PAGE', 'LINKS', 'CURSOR', 'PAGING'])];
  fc.assert(
    fc.property(fc.subarray(tickers, { minLength: 1 }), (chosen) => {
      const body = Object.fromEntries(chosen.map((t) => [t, { short_float_pct: 1 }]));
      const rows = payloadParts({ ...body, _meta: { request_id: 'r' } }).rows as { ticker: string }[] | undefined;
      assert.deepEqual(
        rows?.map((r) => r.ticker),
        chosen,
      );
    }),
  );
});

test('paging evidence wherever the answer gives it: tokens, URLs, Link headers, pages, offsets, flags, empty slots', () => {
  const evidence = (body: unknown, link?: string) => payloadParts(body, link).paging;
  assert.equal(evidence({ data: ROWS, _meta: { next_cursor: 'c1' } }).token, 'c1');
  assert.equal(evidence({ items: ROWS, pagination: { next_page_token: 't2' } }).token, 't2');
  assert.equal(evidence({ items: ROWS, nextPageToken: 't3' }).token, 't3');
  assert.equal(evidence({ data: ROWS, paging: { cursors: { after: 'a4', before: 'b' } } }).token, 'a4');
  assert.equal(evidence({ data: ROWS, pagination: { cursor: 'p5' } }).token, 'p5');
  assert.equal(evidence({ results: ROWS, next_url: '/v1/x?cursor=6' }).url, '/v1/x?cursor=6');
  assert.equal(evidence({ data: ROWS, links: { next: 'https://h/v1/x?page=2', prev: 'https://h/p' } }).url, 'https://h/v1/x?page=2');
  assert.equal(evidence({ data: ROWS, _links: { next: { href: '/v1/x?p=3' } } }).url, '/v1/x?p=3');
  assert.equal(evidence(ROWS, '<https://h/v1/x?page=2>; rel="next", <https://h/v1/x?page=9>; rel="last"').url, 'https://h/v1/x?page=2');
  assert.equal(evidence(ROWS, '<https://h/v1/x?page=1>; rel="first"').ended, true, 'a Link header without next: the last page');
  assert.equal(evidence({ data: ROWS, _meta: { next_cursor: null } }).ended, true);
  assert.deepEqual(evidence({ data: ROWS, meta: { page: '2', per_page: 20, total_pages: '7' } }), {
    page: 2,
    per_page: 20,
    total_pages: 7,
    rows: 2,
  });
  assert.deepEqual(evidence({ records: ROWS, offset: 40, total_count: 137 }), { offset: 40, total: 137, rows: 2 });
  assert.equal(evidence({ data: ROWS, has_more: false }).more, false);
  assert.equal(evidence({ data: ROWS, _meta: { truncated: true } }).more, true, "the upstream's own truncated keeps its meaning");
  assert.equal(evidence({ data: ROWS, pageInfo: { endCursor: 'e', hasNextPage: true } }).token, 'e');
  assert.equal(evidence({ data: ROWS, pageInfo: { endCursor: 'e', hasNextPage: false } }).token, undefined);
  assert.deepEqual(pagingEvidence([], undefined, undefined), {});
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
  // A role by type and format as well as name: page numbers, offsets, cursors named as public APIs name them, dotted ranges.
  const date = z.string().meta({ format: 'date' });
  assert.deepEqual(rolesOf({ page: int, per_page: int }), { pageSize: 'per_page', page: 'page' });
  assert.deepEqual(rolesOf({ page: str }), { cursor: 'page' }, 'a page that is text is a token');
  assert.deepEqual(rolesOf({ offset: int, limit: int }), { pageSize: 'limit', offset: 'offset' });
  assert.deepEqual(rolesOf({ after: str }), { cursor: 'after' });
  assert.deepEqual(rolesOf({ after: date, before: date }), { rangeStart: 'after', rangeEnd: 'before' }, 'dated: a range');
  assert.deepEqual(rolesOf({ next_cursor: str }), { cursor: 'next_cursor' });
  assert.deepEqual(rolesOf({ starting_after: str }), { cursor: 'starting_after' });
  assert.deepEqual(rolesOf({ 'date.gte': date, 'date.lte': date }), { rangeStart: 'date.gte', rangeEnd: 'date.lte' });
  assert.deepEqual(rolesOf({ start_date: str, end_date: str, symbols: str }), {
    rangeStart: 'start_date',
    rangeEnd: 'end_date',
    tickers: 'symbols',
  });
});
