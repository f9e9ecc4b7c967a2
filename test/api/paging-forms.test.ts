/**
 * Issue 29: two paging forms real APIs use. JSON:API's `page[size]`/`page[number]` (or
 * `page[cursor]`, `page[offset]`), written as bracketed query parameters or as one `page`
 * parameter with `style: deepObject`; and Stripe's `starting_after`, where the answer says
 * `has_more` and names no token, so the next page is the rows after the last one's id. Each is
 * read from the document, sent under exactly the names it lists, and followed page by page
 * until every row is read exactly once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { datasetQuery } from '../../src/api/dataset-query.js';
import { followPaging, pageKey, queryAt, type NextPage } from '../../src/api/next-page.js';
import { payloadParts } from '../../src/api/payload-parts.js';
import { datasetTarget } from '../../src/api/request-target.js';
import type { DatasetDefinition, QueryValues } from '../../src/catalog/index.js';
import { upstreamRoles } from '../../src/catalog/param-roles.js';
import { datasetsFromOpenApi } from '../../src/registry/openapi/import.js';
import { catalogDocument } from '../helpers/fake-upstream.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

const PATH = '/v1/congress/recent-trades';
type Param = Record<string, unknown>;

/** The catalog's document with the congress trades' page size and cursor replaced by `paging`. */
function congressWith(paging: Param[]): DatasetDefinition {
  const doc = catalogDocument();
  const item = doc.paths[PATH];
  assert.ok(item);
  item.get.parameters = [...item.get.parameters.filter((p) => p['name'] !== 'limit' && p['name'] !== 'cursor'), ...paging];
  const dataset = datasetsFromOpenApi(doc, { fresh: true }).datasets.find((d) => d.path === PATH);
  assert.ok(dataset && dataset.unreadable === undefined, 'the congress trades are read from the document');
  return dataset;
}

const int = (max: number): Param => ({ type: 'integer', minimum: 1, maximum: max });
const BRACKETS: Record<'number' | 'cursor' | 'offset', Param[]> = {
  number: [
    { name: 'page[size]', in: 'query', schema: int(100) },
    { name: 'page[number]', in: 'query', schema: int(100_000) },
  ],
  cursor: [
    { name: 'page[size]', in: 'query', schema: int(100) },
    { name: 'page[cursor]', in: 'query', schema: { type: 'string' } },
  ],
  offset: [
    { name: 'page[limit]', in: 'query', schema: int(100) },
    { name: 'page[offset]', in: 'query', schema: { type: 'integer', minimum: 0 } },
  ],
};
const MEMBER: Record<keyof typeof BRACKETS, [string, string]> = {
  number: ['size', 'number'],
  cursor: ['size', 'cursor'],
  offset: ['limit', 'offset'],
};

/** The same paging as one `page` parameter, `style: deepObject`, `explode: true`. */
function deepObject(position: keyof typeof BRACKETS): Param[] {
  const [size, at] = MEMBER[position];
  const atSchema = position === 'cursor' ? { type: 'string' } : position === 'offset' ? { type: 'integer', minimum: 0 } : int(100_000);
  return [
    {
      name: 'page',
      in: 'query',
      style: 'deepObject',
      explode: true,
      schema: { type: 'object', properties: { [size]: int(100), [at]: atSchema } },
    },
  ];
}

const POSITIONS = ['number', 'cursor', 'offset'] as const;

for (const form of ['bracketed names', 'deepObject'] as const)
  for (const position of POSITIONS)
    test(`JSON:API page[${MEMBER[position][1]}] written as ${form}: limit is sent as page[${MEMBER[position][0]}], and nothing else`, () => {
      const dataset = congressWith(form === 'deepObject' ? deepObject(position) : BRACKETS[position]);
      const [size, at] = MEMBER[position];
      const roles = upstreamRoles(dataset);
      assert.equal(roles.pageSize, 'limit', 'the tool keeps its limit, mapped to the page size');
      assert.ok(position === 'number' ? roles.page : position === 'cursor' ? roles.cursor : roles.offset, `page[${at}] plays its role`);
      const sent = datasetTarget(datasetQuery(dataset, undefined, { limit: 7 })).query;
      assert.deepEqual(sent, { [`page[${size}]`]: 7 });
      assert.equal(
        new URLSearchParams(Object.entries(sent).map(([k, v]): [string, string] => [k, String(v)])).toString(),
        `page%5B${size}%5D=7`,
      );
    });

const rowsOf = (n: number): { id: string; amount: number }[] => Array.from({ length: n }, (_, i) => ({ id: `tr_${i}`, amount: i }));

/** Follows `dataset`'s pages over `serve` from the first, as the client does; every query sent and every row read. */
function readAll(
  dataset: DatasetDefinition,
  size: number,
  serve: (sent: Readonly<Record<string, unknown>>) => unknown,
): { rows: string[]; sent: string[][] } {
  const rows: string[] = [];
  const sent: string[][] = [];
  let query: QueryValues = { limit: size };
  let at: NextPage | undefined;
  const seen = new Set<string>();
  for (let guard = 0; guard < 1000; guard += 1) {
    const asked = at === undefined ? query : at.kind === 'url' ? undefined : queryAt(datasetQuery(dataset, undefined, query), at)?.values;
    const wire: Record<string, unknown> =
      asked !== undefined
        ? { ...datasetTarget(datasetQuery(dataset, undefined, asked)).query }
        : Object.fromEntries(new URL(at?.kind === 'url' ? at.url : '', 'http://upstream.invalid').searchParams);
    sent.push(Object.keys(wire));
    const parts = payloadParts(serve(wire));
    for (const row of parts.rows ?? []) rows.push(String((row as { id: unknown }).id));
    const paging = followPaging(
      datasetQuery(dataset, undefined, asked ?? {}),
      parts.paging,
      (url) => (url.startsWith(PATH) ? url : undefined),
      at,
    );
    assert.equal(paging.cut, false, 'no rows said to be out of reach');
    if (!paging.next_page) break;
    assert.ok(!seen.has(pageKey(paging.next_page)), 'no page named twice');
    seen.add(pageKey(paging.next_page));
    at = paging.next_page;
    if (asked) query = asked;
  }
  return { rows, sent };
}

/** A JSON:API upstream: resources, `meta.page` numbers or `links.next`, for every position. */
function jsonApiServer(all: readonly { id: string; amount: number }[], position: keyof typeof BRACKETS, next: 'links' | 'meta') {
  const [sizeName, atName] = MEMBER[position].map((m) => `page[${m}]`) as [string, string];
  return (sent: Readonly<Record<string, unknown>>): unknown => {
    const size = Number(sent[sizeName] ?? 10);
    const at = sent[atName];
    const from = position === 'number' ? (Number(at ?? 1) - 1) * size : Number(at ?? 0);
    const page = all.slice(from, from + size);
    const more = from + size < all.length;
    const nextAt = position === 'number' ? String(from / size + 2) : String(from + size);
    const nextUrl = `${PATH}?${new URLSearchParams({ [sizeName]: String(size), [atName]: nextAt }).toString()}`;
    const data = page.map(({ id, ...attributes }) => ({ type: 'trade', id, attributes }));
    if (next === 'links') return { data, links: { self: PATH, next: more ? nextUrl : null } };
    const meta =
      position === 'number'
        ? { page: { 'current-page': from / size + 1, 'per-page': size, 'last-page': Math.max(1, Math.ceil(all.length / size)) } }
        : position === 'offset'
          ? { page: { offset: from, limit: size, total: all.length } }
          : { page: { next_cursor: more ? nextAt : null } };
    return { data, meta };
  };
}

test('following a JSON:API list in either form, by links.next or meta.page, reads every row exactly once and sends only listed names', () => {
  const datasets = new Map<string, DatasetDefinition>();
  fc.assert(
    fc.property(
      fc.nat({ max: 140 }),
      fc.integer({ min: 1, max: 40 }),
      fc.constantFrom(...POSITIONS),
      fc.constantFrom('bracketed names', 'deepObject'),
      fc.constantFrom('links', 'meta'),
      (n, size, position, form, next) => {
        const key = `${form}:${position}`;
        let dataset = datasets.get(key);
        if (!dataset) datasets.set(key, (dataset = congressWith(form === 'deepObject' ? deepObject(position) : BRACKETS[position])));
        const all = rowsOf(n);
        const { rows, sent } = readAll(dataset, size, jsonApiServer(all, position, next));
        assert.deepEqual(
          rows,
          all.map((r) => r.id),
          'every row once, in order',
        );
        const listed = new Set([...MEMBER[position].map((m) => `page[${m}]`)]);
        for (const names of sent) for (const name of names) assert.ok(listed.has(name), `${name} is listed by the document`);
      },
    ),
    { numRuns: 150 },
  );
});

const STRIPE_NAMES = ['starting_after', 'after', 'after_id', 'since_id'] as const;

test('Stripe: has_more with no token pages by the last row id under starting_after (or after, after_id, since_id), every row once', () => {
  const datasets = new Map<string, DatasetDefinition>();
  fc.assert(
    fc.property(fc.nat({ max: 140 }), fc.integer({ min: 1, max: 40 }), fc.constantFrom(...STRIPE_NAMES), (n, size, name) => {
      let dataset = datasets.get(name);
      if (!dataset)
        datasets.set(
          name,
          (dataset = congressWith([
            { name: 'limit', in: 'query', schema: int(100) },
            { name, in: 'query', schema: { type: 'string' } },
            { name: 'ending_before', in: 'query', schema: { type: 'string' } },
          ])),
        );
      const all = rowsOf(n);
      const { rows, sent } = readAll(dataset, size, (wire) => {
        const after = wire[name];
        const from = after === undefined ? 0 : all.findIndex((r) => r.id === after) + 1;
        assert.ok(after === undefined || from > 0, 'the id sent is a row of the list');
        const page = all.slice(from, from + Number(wire['limit'] ?? 10));
        return { object: 'list', url: PATH, data: page, has_more: from + page.length < all.length };
      });
      assert.deepEqual(
        rows,
        all.map((r) => r.id),
        'every row once, in order',
      );
      for (const names of sent) for (const sentName of names) assert.ok(sentName === 'limit' || sentName === name, `${sentName} is listed`);
    }),
    { numRuns: 100 },
  );
});

test('Stripe has_more whose rows carry no id, or whose cursor is opaque, stays out of reach rather than guessed', () => {
  const opaque = congressWith([
    { name: 'limit', in: 'query', schema: int(100) },
    { name: 'page_token', in: 'query', schema: { type: 'string' } },
  ]);
  const stripe = congressWith([
    { name: 'limit', in: 'query', schema: int(100) },
    { name: 'starting_after', in: 'query', schema: { type: 'string' } },
  ]);
  const follow = (dataset: DatasetDefinition, body: unknown) =>
    followPaging(datasetQuery(dataset, undefined, {}), payloadParts(body).paging, () => undefined);
  const noIds = follow(stripe, { object: 'list', data: [{ amount: 1 }, { amount: 2 }], has_more: true });
  assert.equal(noIds.next_page, undefined);
  assert.equal(noIds.cut, true, 'rows without ids: the rest is said to be out of reach');
  const withOpaque = follow(opaque, { object: 'list', data: rowsOf(2), has_more: true });
  assert.equal(withOpaque.next_page, undefined, 'a page_token is never given a row id');
  assert.equal(withOpaque.cut, true);
});
