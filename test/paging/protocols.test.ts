/**
 * Paging as a protocol learned from evidence (issue 29): lists paged by page numbers with
 * `total_pages`, by offsets with `total_count`, by a `Link` header, by a token inside a
 * `pagination` object, by a `next_url`, and by page numbers with no total at all. Through
 * the built binary and the v2 client, following next_cursor from the first answer reads
 * every row the upstream holds exactly once; no request carries a parameter the document
 * does not list (a next URL the upstream issued is its own evidence); an end the upstream did
 * not state is never claimed (has_more left out, with a notice).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, textOf } from '../helpers/mcp.js';
import { catalogDocument, withFakeUpstream, type FakeAnswer, type FakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789';
const PATH = '/v1/congress/recent-trades';
const HELD = 137;
const ROWS = Array.from({ length: HELD }, (_, i) => ({ id: i, member: `Member ${i}`, ticker: ['AAPL', 'MSFT', 'NVDA'][i % 3] }));

type Answer = { data: { id: number; ticker: string }[]; meta: { next_cursor?: string; has_more?: boolean; notice?: string } };

interface Protocol {
  name: string;
  /** The parameters the document lists for the dataset. */
  params: Record<string, Record<string, unknown>>;
  /** The page asked for (params already checked against the document or the issued URL). */
  page: (url: URL, base: string) => FakeAnswer;
  /** Parameters a request may also carry because a next URL the upstream issued holds them. */
  issued?: readonly string[];
}

const int = (max: number, min = 0): Record<string, unknown> => ({ type: 'integer', minimum: min, maximum: max });
const str = { type: 'string', maxLength: 64 };

const PROTOCOLS: Protocol[] = [
  {
    name: 'page and per_page, total_pages in meta',
    params: { page: int(1000, 1), per_page: int(50, 1) },
    page: (url) => {
      const per = Number(url.searchParams.get('per_page') ?? 20);
      const page = Number(url.searchParams.get('page') ?? 1);
      return {
        body: {
          data: ROWS.slice((page - 1) * per, page * per),
          meta: { page, per_page: per, total_pages: Math.ceil(HELD / per) },
        },
      };
    },
  },
  {
    name: 'offset and limit, {records, total_count}',
    params: { offset: int(100_000), limit: int(50, 1) },
    page: (url) => {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      return { body: { records: ROWS.slice(offset, offset + limit), total_count: HELD } };
    },
  },
  {
    name: 'a Link header rel="next" naming a parameter the document does not list',
    params: { limit: int(50, 1) },
    issued: ['after'],
    page: (url, base) => {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const after = Number(url.searchParams.get('after') ?? 0);
      const next = after + limit < HELD ? `${base}${PATH}?limit=${limit}&after=${after + limit}` : undefined;
      return {
        body: ROWS.slice(after, after + limit),
        headers: next ? { link: `<${next}>; rel="next", <${base}${PATH}?limit=${limit}>; rel="first"` } : {},
      };
    },
  },
  {
    name: 'pagination.next_page_token with a page_token parameter',
    params: { page_token: str, page_size: int(50, 1) },
    page: (url) => {
      const size = Number(url.searchParams.get('page_size') ?? 20);
      const start = Number(url.searchParams.get('page_token')?.slice(1) ?? 0);
      const next = start + size < HELD ? `t${start + size}` : null;
      return { body: { items: ROWS.slice(start, start + size), pagination: { next_page_token: next, page_size: size } } };
    },
  },
  {
    name: '{status, request_id, count, results, next_url} with a cursor only the URL names',
    params: { limit: int(50, 1) },
    issued: ['cursor'],
    page: (url) => {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const rows = ROWS.slice(start, start + limit);
      const next = start + limit < HELD ? `${PATH}?cursor=${start + limit}&limit=${limit}` : undefined;
      return { body: { status: 'OK', request_id: 'r1', count: rows.length, results: rows, ...(next ? { next_url: next } : {}) } };
    },
  },
  {
    name: 'page numbers and bare lists, no total and no flag',
    params: { page: int(1000, 1), per_page: int(50, 1) },
    page: (url) => {
      const per = Number(url.searchParams.get('per_page') ?? 20);
      const page = Number(url.searchParams.get('page') ?? 1);
      return { body: ROWS.slice((page - 1) * per, page * per) };
    },
  },
];

function refuse(message: string): FakeAnswer {
  return { status: 400, body: { error: { code: 'VALIDATION_ERROR', tags: [], message, docs_url: 'x', request_id: null } } };
}

/** The upstream of one protocol: its document, and pages refused for any parameter it does not list or issue. */
function serve(fake: FakeUpstream, protocol: Protocol): void {
  const doc = catalogDocument();
  const trades = doc.paths[PATH];
  assert.ok(trades);
  trades.get.parameters = Object.entries(protocol.params).map(([name, schema]) => ({ name, in: 'query', required: false, schema }));
  fake.document = doc;
  const allowed = new Set([...Object.keys(protocol.params), ...(protocol.issued ?? [])]);
  fake.answer = (_req, url) => {
    if (url.pathname !== PATH) return { status: 404, body: { error: { code: 'NOT_FOUND', tags: [], message: 'x', docs_url: 'x' } } };
    const unknown = [...url.searchParams.keys()].filter((k) => !allowed.has(k));
    return unknown.length > 0 ? refuse(`Unknown parameter "${unknown[0]}".`) : protocol.page(url, fake.url);
  };
}

async function follow(call: (args: Record<string, unknown>) => Promise<Answer>, first: Record<string, unknown>): Promise<Answer[]> {
  const answers = [await call(first)];
  for (let guard = 0; guard < 60; guard += 1) {
    const cursor = answers.at(-1)?.meta.next_cursor;
    if (!cursor) break;
    answers.push(await call({ cursor }));
  }
  return answers;
}

for (const protocol of PROTOCOLS) {
  test(`${protocol.name}: following next_cursor reads every row the upstream holds once, and nothing outside the document is sent`, async () => {
    await withFakeUpstream(async (fake) => {
      serve(fake, protocol);
      const server = await connectV2({ baseUrl: fake.url, key: KEY });
      try {
        const call = async (args: Record<string, unknown>): Promise<Answer> => {
          const result = await server.client.callTool({ name: 'congress_recent_trades', arguments: args });
          assert.notEqual(result.isError, true, `${protocol.name}: ${textOf(result)}`);
          return result.structuredContent as Answer;
        };
        const answers = await follow(call, { limit: 30 });
        const ids = answers.flatMap((a) => a.data.map((r) => r.id));
        assert.deepEqual(
          ids,
          ROWS.map((r) => r.id),
          'every row once, in order',
        );
        for (const answer of answers.slice(0, -1))
          assert.notEqual(answer.meta.has_more, false, 'a page with a cursor never says none are left');
        const last = answers.at(-1);
        assert.ok(last);
        // The end is claimed only where the upstream said it; else has_more is left out and the notice says so.
        if (last.meta.has_more === undefined) assert.match(last.meta.notice ?? '', /did not say whether more rows follow/);

        // Filtered here over the upstream's pages: every matching row once, across every cursor.
        const filtered = await follow(call, { tickers: 'AAPL,NVDA', limit: 25 });
        const matched = filtered.flatMap((a) => a.data.map((r) => r.id));
        assert.deepEqual(
          matched,
          ROWS.filter((r) => r.ticker !== 'MSFT').map((r) => r.id),
          'the filtered rows of every page once',
        );
      } finally {
        await server.close();
      }
    });
  });
}

test('page numbers with no total or flag: an end the upstream did not state is not claimed, and the next page settles it', async () => {
  await withFakeUpstream(async (fake) => {
    const protocol = PROTOCOLS.find((p) => p.name.startsWith('page numbers and bare lists'));
    assert.ok(protocol);
    serve(fake, protocol);
    const server = await connectV2({ baseUrl: fake.url, key: KEY });
    try {
      const call = async (args: Record<string, unknown>): Promise<Answer> => {
        const result = await server.client.callTool({ name: 'congress_recent_trades', arguments: args });
        assert.notEqual(result.isError, true, textOf(result));
        return result.structuredContent as Answer;
      };
      const first = await call({ limit: 30 });
      assert.equal(first.data.length, 30);
      assert.equal(first.meta.has_more, undefined, 'a full page of no total: more rows may exist, and it is not said either way');
      assert.match(first.meta.notice ?? '', /did not say whether more rows follow.*next_cursor reads the next page/);
      assert.ok(first.meta.next_cursor, 'the next page is named');
      // 137 rows at 30 a page: the fifth page is short, which says it is the last.
      const answers = await follow(call, { limit: 30 });
      assert.equal(answers.at(-1)?.meta.has_more, false, 'a short page ends the list');
    } finally {
      await server.close();
    }
  });
});

test('a next URL on another origin or path is never asked: the list reads as cut by the API, and the key goes nowhere else', async () => {
  await withFakeUpstream(async (elsewhere) => {
    await withFakeUpstream(async (fake) => {
      const doc = catalogDocument();
      const trades = doc.paths[PATH];
      assert.ok(trades);
      trades.get.parameters = [{ name: 'limit', in: 'query', required: false, schema: int(50, 1) }];
      fake.document = doc;
      let target = `${elsewhere.url}${PATH}?cursor=2`;
      fake.answer = () => ({ body: { results: ROWS.slice(0, 10), next_url: target } });
      const server = await connectV2({ baseUrl: fake.url, key: KEY });
      try {
        for (const next of [`${elsewhere.url}${PATH}?cursor=2`, `${fake.url}/v1/stocks/dividends/AAPL?cursor=2`]) {
          target = next;
          const result = await server.client.callTool({ name: 'congress_recent_trades', arguments: { limit: 10 + (next.length % 7) } });
          assert.notEqual(result.isError, true, textOf(result));
          const answer = result.structuredContent as Answer & { meta: { truncated: boolean; more_rows?: string } };
          assert.equal(answer.meta.next_cursor, undefined, `${next}: no cursor to a page elsewhere`);
          assert.equal(answer.meta.truncated, true, 'the rows past it are said to be left out');
          assert.equal(answer.meta.has_more, true);
        }
        assert.equal(elsewhere.requests.length, 0, 'nothing was sent to the other origin');
        assert.deepEqual(
          fake.dataRequests().map((r) => new URL(r.path, 'http://x').pathname),
          [PATH, PATH],
          'nor to another path: one request a call, to its own',
        );
      } finally {
        await server.close();
      }
    });
  });
});
