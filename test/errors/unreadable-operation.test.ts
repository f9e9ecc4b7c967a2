/**
 * A document that lists a curated dataset in a form OpenAPI forbids (a path variable no
 * parameter declares, a parameter declared twice, a `$ref` to nothing) or that this server
 * cannot honour (a required header) gives no parameters to send. The tool stays, its
 * description says why, and a call answers OPERATION_UNREADABLE with the reason: the
 * catalog's guesses are never sent instead. Driven through the built binary.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { catalogDocument, withFakeUpstream } from '../helpers/fake-upstream.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

const KEY = 'fake-key-0123456789-SECRET';

type Doc = ReturnType<typeof catalogDocument> & { components?: Record<string, unknown> };

const FORMS: [string, (doc: Doc) => void, RegExp][] = [
  [
    'a path variable no parameter declares',
    (doc) => {
      const op = doc.paths['/v1/stocks/dividends/{ticker}'];
      assert.ok(op);
      op.get.parameters = op.get.parameters.filter((p) => p['in'] !== 'path');
    },
    /path variable \{ticker\} is declared by no parameter/,
  ],
  [
    'a parameter declared twice',
    (doc) => {
      const op = doc.paths['/v1/stocks/dividends/{ticker}'];
      assert.ok(op);
      op.get.parameters.push({ name: 'limit', in: 'query', schema: { type: 'integer' } });
    },
    /"limit" is declared twice/,
  ],
  [
    'a $ref to nothing',
    (doc) => {
      const op = doc.paths['/v1/stocks/dividends/{ticker}'];
      assert.ok(op);
      op.get.parameters.push({ $ref: '#/components/parameters/Gone' });
    },
    /\$ref to nothing/,
  ],
  [
    'a required header',
    (doc) => {
      const op = doc.paths['/v1/stocks/dividends/{ticker}'];
      assert.ok(op);
      op.get.parameters.push({ name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string' } });
    },
    /requires the header "X-Tenant"/,
  ],
];

for (const [form, mutate, reason] of FORMS) {
  test(`a curated dataset listed with ${form}: the tool says so and sends nothing`, async () => {
    await withFakeUpstream(async (fake) => {
      const doc = catalogDocument() as Doc;
      mutate(doc);
      fake.document = doc;
      const server = await connectV2({ baseUrl: fake.url, key: KEY });
      try {
        const tool = (await server.client.listTools()).tools.find((t) => t.name === 'stocks_dividends');
        assert.ok(tool, 'the tool stays listed');
        assert.match(tool.description ?? '', /Unavailable: the API's document describes this dataset in a form this server cannot read/);
        assert.match(tool.description ?? '', reason);
        const refused = await server.client.callTool({ name: 'stocks_dividends', arguments: { ticker: 'AAPL' } });
        const error = errorOf(refused);
        assert.equal(error.code, 'OPERATION_UNREADABLE');
        assert.match(error.hint ?? '', reason);
        assert.equal(fake.dataRequests().length, 0, "no request on the catalog's guesses");
        // The other datasets of the document are unaffected.
        const other = await server.client.callTool({ name: 'stocks_ticker_exchanges', arguments: { limit: 5 } });
        assert.notEqual(other.isError, true);
      } finally {
        await server.close();
      }
    });
  });
}
