/**
 * The document is read as OpenAPI allows it to be written. One document, rewritten at
 * random into forms real generators emit (parameters by `$ref` to `components/parameters`
 * or declared on the path item, 3.0 `nullable`, 3.1 type arrays, FastAPI's `anyOf` with
 * null, enums by `$ref`, `allOf` wrappers, `const`, `servers` with a base path and the
 * keys relative to it, Swagger 2's inline types and `basePath`), must import to the same
 * tools: the same parameters with the same checks, the same paths on the wire, nothing
 * skipped. A rewriting nobody listed is covered as long as it is one of these rules.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildOpenApiDocument, DATASETS, type DatasetDefinition } from '../../src/catalog/index.js';
import { toolInputJsonSchema } from '../../src/mcp/arguments/input-schema.js';
import { screenToolArguments } from '../../src/mcp/arguments/screen.js';
import { dereferenceDocument } from '../../src/registry/openapi/dereference.js';
import { openDocument } from '../../src/registry/openapi/document-source.js';
import { datasetsFromOpenApi, importOperations, type ImportOptions, type ImportReport } from '../../src/registry/openapi/import.js';
import { datasetQuery } from '../../src/api/dataset-query.js';
import { datasetTarget } from '../../src/api/request-target.js';
import { requestKey } from '../../src/api/cache.js';
import { payloadParts } from '../../src/api/payload-parts.js';
import { buildPath } from '../../src/api/request-target.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

type Json = Record<string, unknown>;
const BASE_URL = 'https://api.example.test';

interface Forms {
  declaration: 'inline' | 'ref' | 'path-level';
  nullable: 'none' | 'nullable-3.0' | 'type-array' | 'anyOf' | 'oneOf';
  enumByRef: boolean;
  allOf: boolean;
  constForSingle: boolean;
  servers: 'none' | 'relative' | 'absolute' | 'variables' | 'swagger2';
  tickerName: 'ticker' | 'symbol';
}

const forms: fc.Arbitrary<Forms> = fc.record({
  declaration: fc.constantFrom('inline', 'ref', 'path-level'),
  nullable: fc.constantFrom('none', 'nullable-3.0', 'type-array', 'anyOf', 'oneOf'),
  enumByRef: fc.boolean(),
  allOf: fc.boolean(),
  constForSingle: fc.boolean(),
  servers: fc.constantFrom('none', 'relative', 'absolute', 'variables', 'swagger2'),
  tickerName: fc.constantFrom('ticker', 'symbol'),
});

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** An optional parameter's schema as a generator of that form writes it. */
function optionalForm(schema: Json, form: Forms['nullable']): Json {
  const type = schema['type'];
  switch (form) {
    case 'none':
      return schema;
    case 'nullable-3.0':
      return { ...schema, nullable: true };
    case 'type-array':
      return typeof type === 'string' ? { ...schema, type: [type, 'null'] } : schema;
    case 'anyOf':
    case 'oneOf': {
      const { description, default: fallback, ...rest } = schema;
      return {
        [form]: [rest, { type: 'null' }],
        ...(description === undefined ? {} : { description }),
        ...(fallback === undefined ? {} : { default: fallback }),
      };
    }
  }
}

/** The catalog's document, rewritten in `f`'s forms. */
function rewrite(f: Forms): Json {
  const doc = clone(buildOpenApiDocument(DATASETS)) as unknown as Json;
  const components = (doc['components'] ?? {}) as Json;
  const parameters: Json = {};
  const schemas = (components['schemas'] ?? {}) as Json;
  const paths = doc['paths'] as Record<string, Json>;
  const out: Record<string, Json> = {};
  let counter = 0;
  for (const [key, item] of Object.entries(paths)) {
    const get = item['get'] as Json;
    const params = (get['parameters'] as Json[]).map((raw) => {
      let param = clone(raw);
      let schema = param['schema'] as Json;
      if (param['in'] === 'path' && param['name'] === 'ticker') param['name'] = f.tickerName;
      if (Array.isArray(schema['enum']) && f.constForSingle && schema['enum'].length === 1) {
        const { enum: values, ...rest } = schema;
        schema = { ...rest, const: (values as unknown[])[0] };
      }
      if (Array.isArray(schema['enum']) && f.enumByRef) {
        const name = `Enum${(counter += 1)}`;
        const { description, default: fallback, ...rest } = schema;
        schemas[name] = rest;
        schema = { $ref: `#/components/schemas/${name}`, ...(description === undefined ? {} : { description }) };
        if (fallback !== undefined) schema = { allOf: [schema], default: fallback };
      }
      if (f.allOf && schema['$ref'] === undefined && schema['allOf'] === undefined) {
        const { description, ...rest } = schema;
        schema = { allOf: [rest], ...(description === undefined ? {} : { description }) };
      }
      if (param['required'] !== true) schema = optionalForm(schema, f.nullable);
      if (f.servers === 'swagger2') {
        const { schema: _dropped, ...rest } = param;
        void _dropped;
        param = { ...rest, ...schema };
      } else param['schema'] = schema;
      return param;
    });
    let newKey = f.tickerName === 'symbol' ? key.replace('{ticker}', '{symbol}') : key;
    if (f.servers !== 'none' && f.servers !== 'swagger2' && newKey.startsWith('/v1/')) newKey = newKey.slice(3);
    if (f.servers === 'swagger2' && newKey.startsWith('/v1/')) newKey = newKey.slice(3);
    let declared: Json[] = params;
    let atPath: Json[] | undefined;
    if (f.declaration === 'ref') {
      declared = params.map((param) => {
        const name = `P${(counter += 1)}`;
        parameters[name] = param;
        return { $ref: `#/components/parameters/${name}` };
      });
    } else if (f.declaration === 'path-level') {
      atPath = params.filter((p) => p['in'] === 'path');
      declared = params.filter((p) => p['in'] !== 'path');
    }
    out[newKey] = { ...(atPath ? { parameters: atPath } : {}), get: { ...get, parameters: declared } };
  }
  doc['paths'] = out;
  doc['components'] = { ...components, schemas, parameters };
  if (f.servers === 'relative') doc['servers'] = [{ url: '/v1' }];
  if (f.servers === 'absolute') doc['servers'] = [{ url: `${BASE_URL}/v1` }];
  if (f.servers === 'variables')
    doc['servers'] = [
      { url: '{scheme}://api.example.test/{version}', variables: { scheme: { default: 'https' }, version: { default: 'v1' } } },
    ];
  if (f.servers === 'swagger2') {
    delete doc['openapi'];
    doc['swagger'] = '2.0';
    doc['basePath'] = '/v1';
  }
  return doc;
}

/** What a tool shows and what it sends for the same arguments: the parts a user would notice. */
function observed(dataset: DatasetDefinition): unknown {
  const target = datasetTarget(datasetQuery(dataset, dataset.ticker ? 'SPY' : undefined, {}));
  return {
    path: dataset.path,
    input: toolInputJsonSchema(dataset),
    upstreamNames: dataset.upstreamNames ?? {},
    localParams: dataset.localParams ?? [],
    wire: requestKey(buildPath(target), target.query),
  };
}

const plain = datasetsFromOpenApi(buildOpenApiDocument(DATASETS), { baseUrl: BASE_URL });

/**
 * The document imported as the registry reads it, an operation at a time
 * (src/registry/openapi/document-source.ts), held to the same import of the document resolved
 * whole: the same datasets, the same reports.
 */
async function importRead(raw: unknown, options: ImportOptions): Promise<ImportReport> {
  const whole = datasetsFromOpenApi((await dereferenceDocument(raw)).resolved, options);
  const read = importOperations(await openDocument(raw), options);
  const { datasets: wholeDatasets, ...wholeReport } = whole;
  const { datasets: readDatasets, ...readReport } = read;
  assert.deepEqual(readReport, wholeReport, 'the reports of the document read an operation at a time and resolved whole');
  assert.deepEqual(readDatasets.map(described), wholeDatasets.map(described), 'the tools, read an operation at a time and resolved whole');
  return read;
}

/** What a tool offers and where its parameters go, for any dataset (observed() needs values for path variables). */
function described(dataset: DatasetDefinition): unknown {
  const { ticker: _ticker, query: _query, shaping: _shaping, ...plainFields } = dataset;
  void [_ticker, _query, _shaping];
  return { ...plainFields, input: toolInputJsonSchema(dataset) };
}

test('the catalog document in any of the forms OpenAPI allows imports to the same tools, nothing skipped', async () => {
  assert.deepEqual(plain.skipped, []);
  await fc.assert(
    fc.asyncProperty(forms, async (f) => {
      const raw = rewrite(f);
      const report = await importRead(raw, { baseUrl: BASE_URL, fresh: true });
      assert.deepEqual(report.skipped, [], JSON.stringify(f));
      assert.deepEqual(report.retired, [], JSON.stringify(f));
      assert.deepEqual(report.added, [], JSON.stringify(f));
      assert.equal(report.datasets.length, plain.datasets.length);
      for (const expected of plain.datasets) {
        const got = report.datasets.find((d) => d.operationId === expected.operationId);
        assert.ok(got, `${expected.operationId} in ${JSON.stringify(f)}`);
        assert.deepEqual(observed(got), observed(expected), `${expected.operationId} in ${JSON.stringify(f)}`);
      }
    }),
    { numRuns: 60 },
  );
});

test("a dataset the registry adds with an enum by $ref, a dotted range, a list parameter and a path variable of its own is offered, and sends the document's names and forms", async () => {
  const doc = clone(buildOpenApiDocument(DATASETS)) as unknown as Json;
  (doc['components'] as Json)['schemas'] = {
    ...((doc['components'] as Json)['schemas'] as Json),
    Venue: { type: 'string', enum: ['NYSE', 'NASDAQ', 'ARCA'] },
  };
  (doc['paths'] as Json)['/v1/etf/{fund}/flows'] = {
    parameters: [{ name: 'fund', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Z]{2,5}$' } }],
    get: {
      operationId: 'etf_flows_get',
      parameters: [
        { name: 'venue', in: 'query', schema: { anyOf: [{ $ref: '#/components/schemas/Venue' }, { type: 'null' }] } },
        { name: 'date.gte', in: 'query', schema: { type: ['string', 'null'], format: 'date' } },
        { name: 'symbols', in: 'query', style: 'form', explode: true, schema: { type: 'array', items: { type: 'string' }, maxItems: 5 } },
        { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
      ],
    },
  };
  const report = await importRead(doc, { baseUrl: BASE_URL, fresh: true });
  assert.deepEqual(report.skipped, []);
  const flows = report.datasets.find((d) => d.path === '/v1/etf/{fund}/flows');
  assert.ok(flows, JSON.stringify(report.added));
  const input = toolInputJsonSchema(flows) as { properties: Record<string, Json>; required?: string[] };
  assert.deepEqual(
    Object.keys(input.properties)
      .filter((name) => name !== 'fields')
      .sort(),
    ['date_gte', 'fund', 'symbols', 'venue'],
  );
  assert.deepEqual(input.properties['venue']?.['enum'], ['NYSE', 'NASDAQ', 'ARCA'], 'the enum through its $ref');
  assert.match(String(input.properties['venue']?.['description']), /not reviewed/, 'marked as the registry’s values');
  assert.equal(input.properties['symbols']?.['type'], 'array');
  assert.ok(input.required?.includes('fund'));
  assert.ok(!('x_trace' in input.properties) && !('X-Trace' in input.properties), 'an optional header is not offered');
  // What goes on the wire: the path variable in the path, the dotted name as the document spells it, the list exploded.
  const query = { fund: 'SPY', venue: 'NYSE', date_gte: '2026-11-02', symbols: 'AAPL,MSFT' };
  const target = datasetTarget(datasetQuery(flows, undefined, query));
  assert.equal(requestKey(buildPath(target), target.query), '/v1/etf/SPY/flows?date.gte=2026-11-02&symbols=AAPL&symbols=MSFT&venue=NYSE');
  // A value that would open another path segment never reaches a URL.
  assert.throws(() => datasetTarget(datasetQuery(flows, undefined, { ...query, fund: '..' })), /path parameter/);
});

test('a parameter of a known dataset the document writes otherwise (a tighter maximum, another pattern) is checked as the document says', async () => {
  const doc = clone(buildOpenApiDocument(DATASETS)) as unknown as Json;
  const paths = doc['paths'] as Record<string, { get: { parameters: Json[] } }>;
  const fx = paths['/v1/macro/forex-rate'];
  assert.ok(fx);
  fx.get.parameters = [{ name: 'pair', in: 'query', required: true, schema: { type: 'string', pattern: '^[A-Z]{3}/[A-Z]{3}$' } }];
  const screener = paths['/v1/shorts/short-screener'];
  assert.ok(screener);
  screener.get.parameters = screener.get.parameters.map((p) =>
    p['name'] === 'limit' ? { ...p, schema: { type: ['integer', 'null'], minimum: 1, maximum: 50 } } : p,
  );
  const report = await importRead(doc, { fresh: true });
  const pair = report.datasets.find((d) => d.operationId === 'macro.forex_rate')?.query['pair'];
  assert.ok(pair);
  assert.equal(pair.safeParse('EUR/USD').success, true, "the document's form is accepted");
  assert.equal(pair.safeParse('EURUSD').success, false, "the catalog's guess is not");
  const limit = report.datasets.find((d) => d.operationId === 'shorts.short_screener')?.query['limit'];
  assert.ok(limit);
  assert.equal(limit.safeParse(50).success, true);
  assert.equal(limit.safeParse(51).success, false, 'the tighter maximum holds');
});

test("known lists the document pages by its own page size, page number and offset, rows beside a summary, tickers as an array: the tools take limit and our cursor, not their positions, and know the rows' fields", async () => {
  const doc = clone(buildOpenApiDocument(DATASETS)) as unknown as Json;
  const paths = doc['paths'] as Record<string, { get: { parameters: Json[]; responses: Record<string, Json> } }>;
  const screener = paths['/v1/shorts/short-screener'];
  assert.ok(screener);
  const tickers = screener.get.parameters.find((p) => p['name'] === 'tickers');
  screener.get.parameters = [
    ...screener.get.parameters.filter((p) => p['name'] !== 'cursor' && p['name'] !== 'tickers'),
    { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 }, description: 'Page number, from 1.' },
    { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0 } },
    // Our own words, as the document repeats them: not marked as the registry's.
    {
      name: 'symbols',
      in: 'query',
      description: tickers?.['description'],
      schema: { type: 'array', items: { type: 'string', pattern: '^[A-Z][A-Z0-9]*(\\.[A-Z0-9]+)*$' }, maxItems: 10 },
    },
  ];
  const row = { type: 'object', properties: { ticker: { type: 'string' }, short_float_pct: { type: 'number' } } };
  // A list of rows, or a summary object (format=summary): FastAPI's Union of the two.
  screener.get.responses['200'] = {
    description: 'rows',
    content: {
      'application/json': {
        schema: {
          anyOf: [
            { type: 'array', items: row },
            { type: 'object', description: 'summary' },
          ],
        },
      },
    },
  };
  // A list the catalog gives no page size, paged by the document's own.
  const chain = paths['/v1/options/chain-history/{ticker}'];
  assert.ok(chain);
  chain.get.parameters.push({
    name: 'per_page',
    in: 'query',
    description: 'Rows per page.',
    schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
  });
  const report = datasetsFromOpenApi((await dereferenceDocument(doc)).resolved, { baseUrl: BASE_URL, fresh: true });
  const bars = report.datasets.find((d) => d.operationId === 'options.chain_history');
  assert.ok(bars);
  const barsInput = toolInputJsonSchema(bars) as { properties: Record<string, Json> };
  assert.deepEqual(
    barsInput.properties['limit'],
    { type: 'integer', description: '1-500, default 100.' },
    'its page size is limit, in our words',
  );
  assert.equal(bars.upstreamNames?.['limit'], 'per_page', "sent under the document's name");
  const dataset = report.datasets.find((d) => d.operationId === 'shorts.short_screener');
  assert.ok(dataset);
  assert.deepEqual(dataset.responseFields, ['ticker', 'short_float_pct'], "the rows' fields through the union");
  assert.ok(dataset.query['page'] && dataset.query['offset'], 'the positions are sent as the document names them');
  const input = toolInputJsonSchema(dataset) as { properties: Record<string, Json> };
  assert.ok(!('page' in input.properties) && !('offset' in input.properties), 'nor advertised: the cursor is ours');
  assert.ok('cursor' in input.properties);
  const refused = screenToolArguments(dataset, { page: 2 });
  assert.equal(refused.ok, false, 'a page asked by the agent is refused, not sent');
  assert.ok(!refused.ok && !/\bpage\b/.test(refused.refusal.hint), refused.ok ? '' : refused.refusal.hint);
  const list = input.properties['tickers'] as { items?: Json; description?: string };
  assert.equal(list.items?.['pattern'], undefined, "the items' ticker pattern is not repeated in tools/list");
  assert.equal(
    list.description,
    `${String(tickers?.['description']).replace(/\.$/, '')}; up to 10.`,
    'our own words, unmarked, and its length in words',
  );
});

test('rows keyed by ticker whose documented row names it `symbol` get their key as `symbol`, not an undocumented `ticker`', async () => {
  const doc = clone(buildOpenApiDocument(DATASETS)) as unknown as Json;
  const paths = doc['paths'] as Record<string, { get: { responses: Record<string, Json> } }>;
  const sector = paths['/v1/stocks/sector-tickers'];
  assert.ok(sector);
  const row = { type: 'object', properties: { symbol: { type: 'string' }, name: { type: 'string' } } };
  sector.get.responses['200'] = {
    description: 'rows keyed by ticker',
    content: { 'application/json': { schema: { type: 'object', additionalProperties: row } } },
  };
  const report = datasetsFromOpenApi((await dereferenceDocument(doc)).resolved, { baseUrl: BASE_URL, fresh: true });
  const dataset = report.datasets.find((d) => d.operationId === 'stocks.sector_tickers');
  assert.ok(dataset);
  assert.deepEqual(dataset.responseFields, ['symbol', 'name'], 'the row schema behind additionalProperties');
  const target = datasetTarget(datasetQuery(dataset, undefined, { sector: 'Energy' }));
  assert.equal(target.tickerField, 'symbol');
  const parts = payloadParts({ XOM: { name: 'Exxon Mobil' }, CVX: { name: 'Chevron' } }, undefined, target.tickerField);
  assert.deepEqual(parts.rows, [
    { symbol: 'XOM', name: 'Exxon Mobil' },
    { symbol: 'CVX', name: 'Chevron' },
  ]);
});
