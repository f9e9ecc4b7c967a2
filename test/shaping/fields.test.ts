/**
 * `fields` naming nothing a dataset has costs no unit whenever the names can be known: from
 * a response schema the upstream's document publishes, or from an earlier answer kept in
 * memory (cache on or off). Where nothing can be known, the first call is charged and its
 * answer says why. Driven through the built binary; the fake upstream counts requests.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { catalogDocument, withFakeUpstream } from '../helpers/fake-upstream.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

const KEY = 'fake-key-0123456789-SECRET';
const PATH = '/v1/shorts/short-screener';
const TOOL = 'shorts_short_screener';
const ROW = { ticker: 'AAPL', short_float_pct: 1.5, days_to_cover: 2.1 };

/** The catalog's document, with the screener's 200 answer described down to its rows (through a $ref, as generators write it). */
function documentListingRows(): unknown {
  const doc = catalogDocument() as { paths: Record<string, { get: Record<string, unknown> }>; components?: Record<string, unknown> };
  const operation = doc.paths[PATH];
  assert.ok(operation, 'the catalog has the screener');
  operation.get['responses'] = {
    '200': {
      description: 'rows',
      content: {
        'application/json': {
          schema: { type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/ScreenerRow' } } } },
        },
      },
    },
  };
  doc.components = {
    ...doc.components,
    schemas: {
      ...(doc.components?.['schemas'] ?? {}),
      ScreenerRow: { type: 'object', properties: Object.fromEntries(Object.keys(ROW).map((name) => [name, { type: 'string' }])) },
    },
  };
  return doc;
}

for (const cache of ['on', 'off'] as const) {
  const env: Record<string, string> = cache === 'off' ? { MARKET_DATA_CACHE_ENTRIES: '0' } : {};

  test(`cache ${cache}: the document lists the rows' fields, so the first call naming none of them costs nothing`, async () => {
    await withFakeUpstream(async (fake) => {
      fake.document = documentListingRows();
      fake.answer = () => ({ body: { data: [ROW], _meta: {} } });
      const server = await connectV2({ baseUrl: fake.url, key: KEY, env });
      try {
        const refused = await server.client.callTool({ name: TOOL, arguments: { limit: 3, fields: ['shorts_pct'] } });
        const error = errorOf(refused);
        assert.equal(error.code, 'VALIDATION_ERROR');
        for (const name of Object.keys(ROW)) assert.match(error.hint ?? '', new RegExp(name), 'the hint lists the documented fields');
        assert.equal(fake.dataRequests().length, 0, 'refused before any request');
        // A documented list may be partial: a call naming one of its fields goes, and is answered.
        const answered = await server.client.callTool({ name: TOOL, arguments: { limit: 3, fields: ['ticker', 'borrow_fee'] } });
        assert.notEqual(answered.isError, true);
        assert.equal(fake.dataRequests().length, 1);
      } finally {
        await server.close();
      }
    });
  });

  test(`cache ${cache}: with no field list published, the first call is charged and says why; the next naming none is free`, async () => {
    await withFakeUpstream(async (fake) => {
      fake.answer = () => ({ body: { data: [ROW], _meta: {} } });
      const server = await connectV2({ baseUrl: fake.url, key: KEY, env });
      try {
        const first = await server.client.callTool({ name: TOOL, arguments: { limit: 3, fields: ['shorts_pct'] } });
        assert.match(errorOf(first).hint ?? '', /publishes no field list for this dataset/);
        assert.equal(fake.dataRequests().length, 1, 'nothing could tell the names before this answer');
        // Another query (not a cached one): names remembered from the answer refuse it before any request.
        const second = await server.client.callTool({ name: TOOL, arguments: { limit: 7, fields: ['shorts_pct'] } });
        assert.equal(errorOf(second).code, 'VALIDATION_ERROR');
        assert.doesNotMatch(errorOf(second).hint ?? '', /publishes no field list/, 'this one was not charged');
        assert.equal(fake.dataRequests().length, 1);
      } finally {
        await server.close();
      }
    });
  });
}

test("a dataset the upstream adds, whose document lists its rows' fields by $ref, refuses a first call naming none of them before any request", async () => {
  await withFakeUpstream(async (fake) => {
    const doc = documentListingRows() as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    // Its answer model is resolved and read only when a call asks for its fields (the import lists it without).
    doc.paths['/v1/extra/borrow/{ticker}'] = {
      get: {
        operationId: 'extra.borrow',
        parameters: [{ name: 'ticker', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Z]{1,5}$' } }],
        responses: {
          '200': { description: 'rows', content: { 'application/json': { schema: { $ref: '#/components/schemas/BorrowRows' } } } },
        },
      },
    };
    doc.components.schemas['BorrowRows'] = {
      type: 'object',
      properties: { data: { type: 'array', items: { $ref: '#/components/schemas/BorrowRow' } } },
    };
    doc.components.schemas['BorrowRow'] = { type: 'object', properties: { ticker: { type: 'string' }, borrow_fee: { type: 'number' } } };
    fake.document = doc;
    fake.answer = () => ({ body: { data: [{ ticker: 'AAPL', borrow_fee: 0.3 }], _meta: {} } });
    const server = await connectV2({ baseUrl: fake.url, key: KEY });
    try {
      const refused = await server.client.callTool({ name: 'extra_borrow', arguments: { ticker: 'AAPL', fields: ['shorts_pct'] } });
      const error = errorOf(refused);
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.match(error.hint ?? '', /borrow_fee/, 'the hint lists the documented fields');
      assert.equal(fake.dataRequests().length, 0, 'refused before any request');
      const answered = await server.client.callTool({ name: 'extra_borrow', arguments: { ticker: 'AAPL', fields: ['borrow_fee'] } });
      assert.notEqual(answered.isError, true);
      assert.equal(fake.dataRequests().length, 1);
    } finally {
      await server.close();
    }
  });
});
