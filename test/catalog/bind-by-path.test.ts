/**
 * The live document binds to the catalog by path, whatever its operation ids; absence
 * retires a dataset only on evidence; a partial or odd document never empties the catalog,
 * also after a restart from the disk copy.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { upstreamQuery } from '../../src/catalog/upstream-names.js';
import { MarketDataClient } from '../../src/api/client.js';
import { ConfigSchema } from '../../src/config/config.js';
import { DATASETS, paramJsonSchema } from '../../src/catalog/index.js';
import { screenToolArguments, validateToolArguments } from '../../src/mcp/arguments/screen.js';
import { datasetsFromOpenApi } from '../../src/registry/openapi/import.js';
import { portableOperationId } from '../../src/registry/openapi/names.js';
import { createLogger } from '../../src/log.js';
import { DatasetRegistry } from '../../src/registry/dataset-registry.js';
import { catalogDocument, withFakeUpstream } from '../helpers/fake-upstream.js';

const DEALER = '/v1/derived/dealer-gex/{ticker}/history';
const KEY = 'fake-key-0123456789';

/** Every catalog operation id rewritten by `rename`, as another upstream would publish them. */
function renamed(rename: (ours: string) => string): ReturnType<typeof catalogDocument> {
  const doc = catalogDocument();
  for (const item of Object.values(doc.paths)) item.get['operationId'] = rename(String(item.get['operationId']));
  return doc;
}

const FORMS: Record<string, (ours: string) => string> = {
  camelCase: (id) =>
    `get${id
      .split(/[._]/)
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('')}`,
  'another dotted scheme': (id) => `marketdata.${id.replace('.', '_')}`,
  snake_case: (id) => id.replace('.', '_'),
  'kebab-case': (id) => id.replace(/[._]/g, '-'),
};

for (const [form, rename] of Object.entries(FORMS)) {
  test(`operation ids in ${form} bind to the curated datasets by path: nothing imported, nothing retired, our ids kept`, () => {
    const doc = renamed(rename);
    const dealer = doc.paths[DEALER];
    assert.ok(dealer);
    dealer.get.parameters = dealer.get.parameters.filter((p) => p['name'] !== 'limit' && p['name'] !== 'cursor');
    dealer.get.parameters.push({ name: 'page_token', in: 'query', required: false, schema: { type: 'string', maxLength: 512 } });
    const report = datasetsFromOpenApi(doc, { fresh: true });
    assert.deepEqual(report.added, [], `${form}: nothing imported`);
    assert.deepEqual(report.retired, [], `${form}: nothing retired`);
    assert.deepEqual(report.datasets.map((d) => d.operationId).sort(), DATASETS.map((d) => d.operationId).sort());
    const bound = report.datasets.find((d) => d.path === DEALER);
    assert.ok(bound?.toolOutput, 'the dealer keeps its output and shaping');
    assert.deepEqual(
      Object.keys(upstreamQuery(bound, Object.fromEntries(Object.keys(bound.query).map((name) => [name, 'x'])))),
      ['page_token'],
      "the dealer's upstream parameters are the document's",
    );
  });
}

test('an operation on a path the catalog does not know is imported under a portable id; its text is marked as not reviewed', () => {
  const doc = catalogDocument();
  doc.paths['/v1/etf/flows-by-ticker/{ticker}'] = {
    get: {
      operationId: 'getEtfFlowsByTicker',
      summary: 'ETF flows `$(curl x)` {"role":"system"} <b>bold</b>',
      parameters: [
        { name: 'ticker', in: 'path', required: true, schema: { type: 'string', maxLength: 12 } },
        { name: 'window', in: 'query', required: false, description: 'Window of days', schema: { type: 'string', enum: ['5d', '20d'] } },
      ],
    },
  };
  const report = datasetsFromOpenApi(doc, { fresh: true });
  assert.deepEqual(report.added, ['etf_flows_by_ticker']);
  const imported = report.datasets.find((d) => d.operationId === 'etf_flows_by_ticker');
  assert.ok(imported);
  assert.match(imported.title, /not reviewed/);
  assert.doesNotMatch(imported.title, /[`${}<>"]/, 'only the characters of plain prose pass');
  assert.match(imported.description, /not reviewed/);
  const windowParam = imported.query['window'];
  assert.ok(windowParam);
  assert.match(paramJsonSchema(windowParam).description ?? '', /^\[not reviewed\]/, 'a parameter description is marked too');
  assert.equal(portableOperationId(undefined, '/v1/etf/flows-by-ticker/{ticker}'), 'etf.flows_by_ticker', 'no id: one from the path');
  assert.equal(portableOperationId('etf-flows-by-ticker', '/v1/x'), 'etf_flows_by_ticker');
  assert.equal(
    portableOperationId('Etf_GetFlowsByTicker', '/v1/x'),
    'etf_flows_by_ticker',
    "NSwag's Tag_Verb reads as getEtfFlowsByTicker does",
  );
  assert.equal(portableOperationId('x<script>', '/v1/etf/flows'), 'etf.flows', 'an odd id: one from the path');
});

test('an upstream that puts its own prefix before every id (marketdata.*) gets the same tool names for datasets the catalog does not know', () => {
  const doc = renamed(FORMS['another dotted scheme'] ?? String);
  doc.paths['/v1/etf/flows-by-ticker/{ticker}'] = {
    get: {
      operationId: 'marketdata.etf_flows_by_ticker',
      parameters: [{ name: 'ticker', in: 'path', required: true, schema: { type: 'string', maxLength: 12 } }],
    },
  };
  assert.deepEqual(
    datasetsFromOpenApi(doc, { fresh: true }).added,
    ['etf_flows_by_ticker'],
    'the prefix every known id carries is left out',
  );
  // Without the evidence of the known operations, a dotted id is the upstream's own group.
  const alone = catalogDocument();
  alone.paths['/v1/etf/flows-by-ticker/{ticker}'] = doc.paths['/v1/etf/flows-by-ticker/{ticker}'];
  assert.deepEqual(datasetsFromOpenApi(alone, { fresh: true }).added, ['marketdata.etf_flows_by_ticker']);
});

/** A document with `usable` catalog operations kept and three unusable operations beside them. */
function partialDocument(usable: number): unknown {
  const doc = catalogDocument();
  const keep = Object.keys(doc.paths).filter(
    (p) => p.startsWith('/v1/') && !['/v1/discover', '/v1/health', '/v1/openapi.json'].includes(p),
  );
  for (const path of keep.slice(usable)) delete doc.paths[path];
  doc.paths['/v1/odd/{id}/x'] = {
    get: { operationId: 'odd.by_id', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] },
  };
  doc.paths['/v1/weird'] = { get: { operationId: 'weird.obj', parameters: [{ name: 'filter', in: 'query', schema: { type: 'object' } }] } };
  doc.paths['/v1/bad name'] = { get: { operationId: 'bad.name', parameters: [] } };
  return doc;
}

for (const usable of [0, 1, 4]) {
  test(`a document with ${usable} usable operation(s) beside unusable ones leaves the catalog in place`, () => {
    const report = datasetsFromOpenApi(partialDocument(usable), { fresh: true });
    assert.deepEqual(report.retired, []);
    // A path with a variable other than the ticker and one with an object parameter are datasets too; a path with a space is not.
    assert.deepEqual(report.added.sort(), ['odd.by_id', 'weird.obj']);
    assert.deepEqual(
      report.datasets.map((d) => d.operationId).filter((id) => DATASETS.some((d) => d.operationId === id)),
      DATASETS.map((d) => d.operationId),
    );
  });
}

test('a fresh document that lists most of the catalog but lacks one path retires that dataset, and says why', () => {
  const doc = catalogDocument();
  delete doc.paths['/v1/macro/forex-rate'];
  const report = datasetsFromOpenApi(doc, { fresh: true });
  assert.deepEqual(
    report.retired.map((r) => r.operationId),
    ['macro.forex_rate'],
  );
  assert.match(report.retired[0]?.reason ?? '', /\/v1\/macro\/forex-rate/);
  const fromDisk = datasetsFromOpenApi(doc, { fresh: false });
  assert.deepEqual(fromDisk.retired, [], 'a disk copy is no evidence');
});

test('a partial document from the upstream, then a restart from its disk copy, leaves all 22 curated datasets', async () => {
  await withFakeUpstream(async (fake) => {
    fake.document = partialDocument(1);
    const cacheDir = mkdtempSync(join(tmpdir(), 'mdmcp-bind-'));
    const config = ConfigSchema.parse({ apiKey: KEY, baseUrl: fake.url, logLevel: 'silent' });
    const log = createLogger('silent');
    const make = (): { client: MarketDataClient; registry: DatasetRegistry } => {
      const client = new MarketDataClient({ config, log });
      return { client, registry: new DatasetRegistry({ client, log, sourceId: fake.url, cacheDir, firstRefreshDelayMs: 60_000 }) };
    };
    const first = make();
    await first.registry.refresh();
    const curated = (registry: DatasetRegistry): number =>
      registry.datasets().filter((d) => DATASETS.some((c) => c.operationId === d.operationId)).length;
    assert.equal(curated(first.registry), DATASETS.length, 'the partial document retired nothing');
    assert.deepEqual(first.registry.notes().retired, []);
    first.registry.stop();
    await first.client.close();

    fake.document = 'unavailable';
    const second = make();
    try {
      await second.registry.start(1000);
      assert.equal(second.registry.notes().source, 'disk', 'the restart read the disk copy');
      assert.equal(curated(second.registry), DATASETS.length, 'the restart from the disk copy keeps the catalog');
    } finally {
      second.registry.stop();
      await second.client.close();
    }
  });
});

test("the registry's notes (api_status server.catalog) name a retired dataset and why, and an imported one", async () => {
  await withFakeUpstream(async (fake) => {
    const doc = catalogDocument();
    delete doc.paths['/v1/macro/forex-rate'];
    doc.paths['/v1/etf/flows'] = { get: { operationId: 'getEtfFlows', parameters: [] } };
    fake.document = doc;
    const config = ConfigSchema.parse({ apiKey: KEY, baseUrl: fake.url, logLevel: 'silent' });
    const log = createLogger('silent');
    const client = new MarketDataClient({ config, log });
    const registry = new DatasetRegistry({ client, log, sourceId: fake.url, cacheDir: undefined });
    try {
      await registry.refresh();
      const notes = registry.notes();
      assert.deepEqual(
        notes.retired.map((r) => r.operationId),
        ['macro.forex_rate'],
      );
      assert.match(notes.retired[0]?.reason ?? '', /lists 21 of the catalog's 22 paths/);
      assert.deepEqual(notes.imported, ['etf_flows']);
      assert.ok(!registry.datasets().some((d) => d.operationId === 'macro.forex_rate'));
    } finally {
      registry.stop();
      await client.close();
    }
  });
});

test('camelCase parameter names are imported: the tool takes their snake_case form and sends the upstream its own names', () => {
  const doc = catalogDocument();
  doc.paths['/v1/etf/flows'] = {
    get: {
      operationId: 'getEtfFlows',
      parameters: [
        { name: 'pageSize', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } },
        { name: 'startDate', in: 'query', required: false, schema: { type: 'string', format: 'date' } },
        { name: 'fund-family', in: 'query', required: false, schema: { type: 'string', enum: ['spdr', 'ishares'] } },
      ],
    },
  };
  const report = datasetsFromOpenApi(doc, { fresh: true });
  assert.deepEqual(report.skipped, []);
  const flows = report.datasets.find((d) => d.operationId === 'etf_flows');
  assert.ok(flows, 'imported');
  assert.deepEqual(Object.keys(flows.query).sort(), ['fund_family', 'page_size', 'start_date']);
  const checked = validateToolArguments(flows, { page_size: 10, start_date: '2026-10-01', fund_family: 'spdr' });
  assert.ok(checked.ok, JSON.stringify(checked));
  assert.deepEqual(upstreamQuery(flows, checked.query), { pageSize: 10, startDate: '2026-10-01', 'fund-family': 'spdr' });
});

test('two optional upstream parameters that would take the same name: the first is offered under it, the other left out', () => {
  const doc = catalogDocument();
  doc.paths['/v1/etf/flows'] = {
    get: {
      operationId: 'getEtfFlows',
      parameters: [
        { name: 'startDate', in: 'query', required: false, schema: { type: 'string' } },
        { name: 'start_date', in: 'query', required: false, schema: { type: 'string' } },
      ],
    },
  };
  const report = datasetsFromOpenApi(doc, { fresh: true });
  const flows = report.datasets.find((d) => d.operationId === 'etf_flows');
  assert.ok(flows, JSON.stringify(report.skipped));
  assert.deepEqual(Object.keys(flows.query), ['start_date']);
  assert.deepEqual(flows.upstreamNames, { start_date: 'startDate' }, 'sent under the name the document gives first');
});

test('two required upstream parameters that would take the same name skip the operation, saying why', () => {
  const doc = catalogDocument();
  doc.paths['/v1/etf/flows'] = {
    get: {
      operationId: 'getEtfFlows',
      parameters: [
        { name: 'startDate', in: 'query', required: true, schema: { type: 'string' } },
        { name: 'start_date', in: 'query', required: true, schema: { type: 'string' } },
      ],
    },
  };
  const report = datasetsFromOpenApi(doc, { fresh: true });
  assert.ok(!report.datasets.some((d) => d.operationId === 'etf_flows'));
  assert.match(report.skipped.map((s) => s.reason).join(), /both read as "start_date"/);
});

test("a dealer history whose document lists a parameter of its own: the tool refuses it by its own list, the upstream's names never offered", () => {
  const doc = catalogDocument();
  const dealer = doc.paths[DEALER];
  assert.ok(dealer);
  dealer.get.parameters = [
    { name: 'ticker', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Z]{1,5}$' } },
    { name: 'pageSize', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 60 } },
    { name: 'pageToken', in: 'query', required: false, schema: { type: 'string', maxLength: 512 } },
    { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'csv'] } },
  ];
  const bound = datasetsFromOpenApi(doc, { fresh: true }).datasets.find((d) => d.path === DEALER);
  assert.ok(bound?.toolOutput);
  const screened = screenToolArguments(bound, { ticker: 'SPY', format: 'csv' });
  assert.equal(screened.ok, false);
  const hint = screened.ok ? '' : screened.refusal.hint;
  assert.doesNotMatch(hint, /pageSize|pageToken|format/);
  assert.match(hint, /view/);
});

test('a parameter named like an Object member goes out under its own name beside a renamed one', () => {
  // An upstream whose document renames page_size (JSON:API's page[size]): etf_constituents' `constructor` went out as "function Object() {...}".
  const [first] = DATASETS;
  assert.ok(first);
  const renamed = { ...first, upstreamNames: { page_size: 'page[size]' } };
  assert.deepEqual(upstreamQuery(renamed, { constructor: 'equal', page_size: 10 }), { constructor: 'equal', 'page[size]': 10 });
});
