// An upstream with a big registry, for the start-up bench: /v1/openapi.json is the
// catalog's own document plus `datasets` generated operations shaped like the catalog's
// (a ticker in the path, a bounded limit, a date range, an enum, a cursor with a
// pattern); every other path answers 404. The server imports at most 100 of them.
// With `distinct`, every operation states each of its parameters in its own way (bounds,
// descriptions, enum values): the import converts none of them once for several datasets.
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

export function bigRegistryDocument(datasets, distinct = false) {
  const document = buildOpenApiDocument(DATASETS);
  for (let i = 0; i < datasets; i += 1) {
    const [path, item] = operation(i, distinct);
    document.paths[path] = item;
  }
  return document;
}

/** Serves the document on a free loopback port; `close()` stops it. */
export async function startFakeUpstream({ datasets, distinct = false }) {
  const body = JSON.stringify(bigRegistryDocument(datasets, distinct));
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
