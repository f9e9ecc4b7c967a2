/**
 * Issue 29: no list called complete without evidence, nothing claimed the upstream did not
 * show. Generated pages of the forms real APIs use (JSON:API, HAL, Polygon, Stripe, headers):
 * an end is read only from evidence of one (a null next link, a total met, no next on a page
 * reached by the upstream's own next), more rows with no next page to ask for are rows left out,
 * and a paging that goes round in a circle is never followed twice.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import * as z from 'zod';
import { datasetQuery } from '../../src/api/dataset-query.js';
import { followPaging, pageKey, PAGES_REMEMBERED, type NextPage } from '../../src/api/next-page.js';
import { payloadParts } from '../../src/api/payload-parts.js';
import type { DatasetDefinition } from '../../src/catalog/index.js';
import { pageRepeats, visitedThrough } from '../../src/mcp/arguments/cursor.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

const dataset = (query: DatasetDefinition['query']): DatasetDefinition => ({
  operationId: 'congress.recent_trades',
  path: '/v1/congress/recent-trades',
  title: 'Trades',
  description: 'Trades.',
  query,
  onDemand: false,
  cacheClass: 'daily',
});
const limit = z.coerce.number().int().min(1).max(200).optional();
/** Only a page size: the upstream's next page can be reached only by a URL it issues. */
const SIZE_ONLY = dataset({ limit });
/** Stripe's `starting_after`: a cursor parameter, whose value the answers never name (the last row's id, where rows have one). */
const STRIPE = dataset({ limit, starting_after: z.string().max(64).optional() });
const OFFSET = dataset({ limit, offset: z.coerce.number().int().min(0).optional() });

const rowsOf = (n: number): { id: number }[] => Array.from({ length: n }, (_, id) => ({ id }));
const ownPath = (url: string): string | undefined => (url.startsWith('/v1/congress/recent-trades') ? url : undefined);
const follow = (ds: DatasetDefinition, body: unknown, reached?: NextPage, headers?: Parameters<typeof payloadParts>[1]) =>
  followPaging(datasetQuery(ds, undefined, {}), payloadParts(body, headers).paging, ownPath, reached);

const ended = (paging: ReturnType<typeof followPaging>, why: string): void => {
  assert.equal(paging.next_page, undefined, `${why}: no next page`);
  assert.equal(paging.cut, false, `${why}: no rows said to be left out`);
  assert.equal(paging.end_unknown, false, `${why}: the end is known`);
};

test('a null next link, a total met on the first page, or no next on a page reached by the upstream next URL is the end', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 300 }), fc.nat({ max: 5 }), (n, later) => {
      const rows = rowsOf(n);
      const url = later > 0 ? ({ kind: 'url', url: `/v1/congress/recent-trades?page=${later}` } as const) : undefined;
      // JSON:API: links.next null, with the whole list's size (45 of 45 read over three pages included).
      ended(follow(SIZE_ONLY, { data: rows, links: { self: '/x', next: null }, meta: { total: n * (later + 1) } }, url), 'JSON:API');
      // JSON:API's last page with no size at all: the null link alone says it.
      ended(follow(SIZE_ONLY, { data: rows, links: { self: '/x', next: null } }), 'JSON:API, no total');
      // A total equal to the rows of the first page read.
      ended(follow(SIZE_ONLY, { items: rows, total: n }), 'total met');
      ended(follow(SIZE_ONLY, rows, undefined, { total: String(n) }), 'X-Total-Count met');
      if (url) {
        // HAL and Polygon: the next link left out of the last page of a list paged by it.
        ended(follow(SIZE_ONLY, { _embedded: { trades: rows }, _links: { self: { href: '/x' } }, total: n * 9 }, url), 'HAL');
        ended(follow(SIZE_ONLY, { status: 'OK', request_id: 'r', count: n, results: rows }, url), 'Polygon');
      }
    }),
  );
});

test('more said with no next page this server can ask for is rows left out, saying why, never an end', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 500 }), (n, beyond) => {
      const rows = rowsOf(n);
      const forms: [string, DatasetDefinition, unknown, Parameters<typeof payloadParts>[1]?][] = [
        // Rows without an id: nothing to continue after (with ids it pages by starting_after, paging-forms.test.ts).
        ['Stripe has_more, no token', STRIPE, { object: 'list', url: '/v1/x', data: rows.map(({ id }) => ({ n: id })), has_more: true }],
        ['total beyond the rows', SIZE_ONLY, { results: rows, total_count: n + beyond }],
        ['X-Total-Count beyond the rows', SIZE_ONLY, rows, { total: String(n + beyond) }],
        ['Content-Range beyond the rows', SIZE_ONLY, rows, { contentRange: `items 0-${n - 1}/${n + beyond}` }],
        ['a next link on another host', SIZE_ONLY, { results: rows, next_url: `https://elsewhere.example/v1/congress/recent-trades?c=2` }],
      ];
      for (const [name, ds, body, headers] of forms) {
        const paging = follow(ds, body, undefined, headers);
        assert.equal(paging.cut, true, `${name}: rows left out`);
        // Out of reach, said why, where no larger limit helps: a cursor parameter with no value for it, a next page elsewhere.
        if (ds === STRIPE || name.includes('another host')) assert.ok(paging.why, `${name}: why`);
        assert.equal(paging.next_page, undefined, name);
      }
    }),
  );
});

test('a next link this server cannot send back as given (elsewhere, or repeating a name) is passed over for the page number or offset the document takes', () => {
  const PAGED = dataset({ limit, page: z.coerce.number().int().min(1).optional() });
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 100 }), fc.integer({ min: 1, max: 50 }), fc.boolean(), (n, current, elsewhere) => {
      const rows = rowsOf(n);
      // GitHub-style Link next with the ticker list exploded (`tickers=SPY&tickers=QQQ`), or on another host.
      const next = elsewhere
        ? `https://elsewhere.example/v1/congress/recent-trades?page=${current + 1}`
        : `/v1/congress/recent-trades?limit=${n}&tickers=SPY&tickers=QQQ&page=${current + 1}`;
      const repeats = (url: string): string | undefined =>
        new URL(url, 'http://h').searchParams.getAll('tickers').length > 1 ? undefined : ownPath(url);
      const paging = followPaging(
        datasetQuery(PAGED, undefined, { limit: n, page: current }),

        payloadParts(rows, { link: `<${next}>; rel="next"` }).paging,
        repeats,
      );
      assert.deepEqual(paging.next_page, { kind: 'page', page: current + 1 }, 'the next page by its number');
      assert.equal(paging.cut, false, 'no rows left out');
      // Without a page number or offset to ask by, the same link leaves the rest out of reach, saying why.
      const sizeOnly = followPaging(
        datasetQuery(SIZE_ONLY, undefined, { limit: n }),
        payloadParts(rows, { link: `<${next}>; rel="next"` }).paging,
        repeats,
      );
      assert.equal(sizeOnly.cut, true);
      assert.equal(sizeOnly.why, 'elsewhere');
    }),
  );
});

test("a next link this server cannot send back as given that names the document's cursor is followed by that cursor", () => {
  fc.assert(
    fc.property(
      // The cursor's name on the wire (the MCP side calls it `cursor`), its token, and where the link is and how it is given.
      fc.constantFrom('cursor', 'page_token', 'next_cursor', 'page[cursor]'),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
      fc.boolean(),
      fc.constantFrom('next_url', 'Link', 'links.next'),
      fc.integer({ min: 1, max: 100 }),
      (wire, token, elsewhere, form, n) => {
        const CURSOR: DatasetDefinition = {
          ...dataset({ limit, cursor: z.string().max(256).optional() }),
          ...(wire === 'cursor' ? {} : { upstreamNames: { cursor: wire } }),
        };
        const rows = rowsOf(n);
        // Polygon's next_url with the ticker list exploded (`tickers=SPY&tickers=QQQ`), or on another host.
        const query = `limit=${n}&tickers=SPY&tickers=QQQ&${encodeURIComponent(wire)}=${token}`;
        const next = elsewhere ? `https://elsewhere.example/v1/congress/recent-trades?c=1&${query}` : `/v1/congress/recent-trades?${query}`;
        const repeats = (url: string): string | undefined =>
          new URL(url, 'http://h').searchParams.getAll('tickers').length > 1 ? undefined : ownPath(url);
        const [body, headers] =
          form === 'next_url'
            ? [{ results: rows, next_url: next }, undefined]
            : form === 'Link'
              ? [rows, { link: `<${next}>; rel="next"` }]
              : [{ data: rows, links: { next } }, undefined];
        const paging = followPaging(datasetQuery(CURSOR, undefined, { limit: n }), payloadParts(body, headers).paging, repeats);
        assert.deepEqual(paging.next_page, { kind: 'token', token }, 'the next page by the cursor the link names');
        assert.equal(paging.cut, false, 'no rows left out');
        // A link naming no cursor of the document's leaves the rest out of reach, saying why.
        const other = next.replace(`${encodeURIComponent(wire)}=`, 'other=');
        const unnamed = followPaging(
          datasetQuery(CURSOR, undefined, { limit: n }),
          payloadParts({ results: rows, next_url: other }).paging,
          repeats,
        );
        assert.equal(unnamed.cut, true);
        assert.equal(unnamed.why, 'elsewhere');
      },
    ),
  );
});

test('a total in the headers pages an offset list to its end: X-Total-Count, X-Total and Content-Range', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 100 }), fc.nat({ max: 2 }), (total, size, form) => {
      let offset = 0;
      for (let guard = 0; guard < 2000; guard += 1) {
        const rows = rowsOf(Math.max(0, Math.min(size, total - offset)));
        const end = offset + rows.length - 1;
        const headers = [{ total: String(total) }, { total: ` ${total}` }, { contentRange: `items ${offset}-${end}/${total}` }][form];
        const paging = followPaging(
          datasetQuery(OFFSET, undefined, { offset, limit: size + 1 }),
          payloadParts(rows, headers).paging,
          ownPath,
        );
        if (!paging.next_page) break;
        assert.equal(paging.next_page.kind, 'offset');
        if (paging.next_page.kind === 'offset') offset = paging.next_page.offset;
      }
      assert.equal(offset + Math.max(0, Math.min(size, total - offset)), total, 'read to the total, no further');
    }),
  );
});

test('a paging that goes round in a circle is followed until a page repeats, each page read once, across cursors', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: PAGES_REMEMBERED }), fc.boolean(), (pages, cycle, asUrls) => {
      // Pages c1..c(pages); the last names c(pages - cycle + 1) again (c2 → c1 when cycle is 2).
      const back = Math.max(1, pages - cycle + 1);
      const page = (i: number): NextPage => (asUrls ? { kind: 'url', url: `/v1/x?c=${i}` } : { kind: 'token', token: `c${i}` });
      const nextOf = (i: number): number => (i === pages ? back : i + 1);
      // As the agent's follow-ups see it: each answer's cursor carries the keys of the pages before.
      let visited: string[] | undefined;
      let current: NextPage | undefined;
      let index = 0;
      const read: string[] = [];
      for (let guard = 0; guard < 100; guard += 1) {
        read.push(current ? pageKey(current) : 'first');
        const next = page(nextOf(index));
        if (pageRepeats(visited, current, next)) break;
        visited = visitedThrough(visited, current);
        current = next;
        index = nextOf(index);
      }
      assert.equal(new Set(read).size, read.length, 'no page read twice');
      assert.equal(read.length, pages + 1, 'every page read once (the first and c1..cN)');
    }),
  );
});
