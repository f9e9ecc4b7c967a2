// An upstream with a big registry, for the start-up bench: /v1/openapi.json is the
// catalog's own document plus `datasets` generated operations shaped like the catalog's
// (a ticker in the path, a bounded limit, a date range, an enum, a cursor with a
// pattern); every other path answers 404. The server imports at most 100 of them.
// With `distinct`, every operation states each of its parameters in its own way (bounds,
// descriptions, enum values): the import converts none of them once for several datasets.
// With `refs`, the operations are written as generators write them (FastAPI, hand-kept
// specs): shared parameters by `$ref` to `components.parameters`, an enum by `$ref`, an
// optional bound as `anyOf` with null, and each answer's rows a model of its own in
// `components.schemas` (as FastAPI makes one per response model), with a 422 by `$ref`.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { buildOpenApiDocument, DATASETS } from '../dist/catalog/index.js';

const GROUPS = ['flow', 'shorts', 'volatility', 'institutional', 'insider', 'macro'];

/** One generated operation; `i` makes its path, id and text unique, and with `distinct` its parameters too. */
function operation(i, distinct) {
  const group = GROUPS[i % GROUPS.length];
  const own = (text) => (distinct ? `${text} (dataset ${i})` : text);
  return [
    `/v1/${group}/bench-${i}/{ticker}`,
    {
      get: {
        operationId: `${group}.bench_dataset_${i}`,
        summary: `Bench dataset ${i}`,
        description: `Generated dataset number ${i} for the start-up bench: daily rows per ticker, newest first.`,
        'x-cache-class': 'daily',
        parameters: [
          {
            name: 'ticker',
            in: 'path',
            required: true,
            description: own('Ticker of 1 to 5 upper-case letters.'),
            schema: { type: 'string', pattern: '^[A-Z]{1,5}$' },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 1, maximum: distinct ? 500 + i : 500, default: 50 },
          },
          { name: 'from', in: 'query', required: false, description: own('First date (ET).'), schema: { type: 'string', format: 'date' } },
          { name: 'to', in: 'query', required: false, description: own('Last date (ET).'), schema: { type: 'string', format: 'date' } },
          {
            name: 'side',
            in: 'query',
            required: false,
            schema: { type: 'string', enum: distinct ? ['buy', 'sell', `side_${i}`] : ['buy', 'sell', 'both'] },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            schema: { type: 'string', minLength: 1, maxLength: distinct ? 512 + i : 512, pattern: '^[A-Za-z0-9_-]+$' },
          },
        ],
        responses: { 200: { description: 'rows' } },
      },
    },
  ];
}

/** The same operation as generators write it: parameters, an enum and the answer's rows by `$ref`. */
function referencingOperation(i) {
  const group = GROUPS[i % GROUPS.length];
  return [
    `/v1/${group}/bench-${i}/{ticker}`,
    {
      get: {
        operationId: `${group}.bench_dataset_${i}`,
        summary: `Bench dataset ${i}`,
        description: `Generated dataset number ${i} for the start-up bench: daily rows per ticker, newest first.`,
        'x-cache-class': 'daily',
        parameters: [
          { $ref: '#/components/parameters/Ticker' },
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { anyOf: [{ type: 'integer', minimum: 1, maximum: 500 }, { type: 'null' }], default: 50, title: 'Limit' },
          },
          { $ref: '#/components/parameters/From' },
          { $ref: '#/components/parameters/To' },
          { name: 'side', in: 'query', required: false, schema: { $ref: '#/components/schemas/Side' } },
          { $ref: '#/components/parameters/Cursor' },
        ],
        responses: {
          200: { description: 'rows', content: { 'application/json': { schema: { $ref: `#/components/schemas/BenchRows${i}` } } } },
          422: {
            description: 'Validation Error',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/HTTPValidationError' } } },
          },
        },
      },
    },
  ];
}

/** What the referencing operations point at: shared parameters and types, and one answer model per dataset. */
function referencedComponents(datasets) {
  const schemas = {
    Side: { type: 'string', enum: ['buy', 'sell', 'both'], title: 'Side' },
    Meta: {
      type: 'object',
      properties: { next_cursor: { anyOf: [{ type: 'string' }, { type: 'null' }] }, request_id: { type: 'string' } },
    },
    ValidationError: {
      type: 'object',
      properties: {
        loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
        msg: { type: 'string' },
        type: { type: 'string' },
      },
      required: ['loc', 'msg', 'type'],
    },
    HTTPValidationError: {
      type: 'object',
      properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } },
    },
  };
  for (let i = 0; i < datasets; i += 1) {
    schemas[`BenchRow${i}`] = {
      type: 'object',
      title: `BenchRow${i}`,
      properties: {
        ticker: { type: 'string' },
        date: { type: 'string', format: 'date' },
        value: { type: 'number' },
        side: { $ref: '#/components/schemas/Side' },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['ticker', 'date', 'value'],
    };
    schemas[`BenchRows${i}`] = {
      type: 'object',
      title: `BenchRows${i}`,
      properties: {
        data: { type: 'array', items: { $ref: `#/components/schemas/BenchRow${i}` } },
        _meta: { $ref: '#/components/schemas/Meta' },
      },
      required: ['data'],
    };
  }
  const dateParameter = (name, description) => ({
    name,
    in: 'query',
    required: false,
    description,
    schema: { type: 'string', format: 'date' },
  });
  return {
    schemas,
    parameters: {
      Ticker: {
        name: 'ticker',
        in: 'path',
        required: true,
        description: 'Ticker of 1 to 5 upper-case letters.',
        schema: { type: 'string', pattern: '^[A-Z]{1,5}$' },
      },
      From: dateParameter('from', 'First date (ET).'),
      To: dateParameter('to', 'Last date (ET).'),
      Cursor: {
        name: 'cursor',
        in: 'query',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9_-]+$' },
      },
    },
  };
}

export function bigRegistryDocument(datasets, distinct = false, refs = false) {
  const document = buildOpenApiDocument(DATASETS);
  for (let i = 0; i < datasets; i += 1) {
    const [path, item] = refs ? referencingOperation(i) : operation(i, distinct);
    document.paths[path] = item;
  }
  if (refs) {
    const own = referencedComponents(datasets);
    document.components = {
      ...document.components,
      schemas: { ...document.components.schemas, ...own.schemas },
      parameters: own.parameters,
    };
  }
  return document;
}

/** Serves the document on a free loopback port; `close()` stops it. */
export async function startFakeUpstream({ datasets, distinct = false, refs = false }) {
  const body = JSON.stringify(bigRegistryDocument(datasets, distinct, refs));
  const server = createServer((request, response) => {
    if (request.url === '/v1/openapi.json') {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'not served by the bench upstream' } }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    bytes: body.length,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
