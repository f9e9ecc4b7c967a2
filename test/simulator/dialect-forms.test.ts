/**
 * The simulator's composed dialects, as property tests over seeds (FUZZ_SEED replays one run,
 * test/helpers/property-seed.ts): every document is valid OpenAPI, checked by a validator
 * that knows 3.0 and 3.1 (@readme/openapi-parser), and the simulator serves exactly what it
 * publishes: the names its document lists and no other, every page of every list answered
 * with a body its 200 schema describes, and the paging its document names reaching the end.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { DATASETS, type DatasetDefinition } from '../../src/catalog/index.js';
import { describeDialect, dialectNamed, type Dialect } from '../../src/simulator/dialect.js';
import { LATER_PAGING_FROM_SEED } from '../../src/simulator/dialect-compose.js';
import { dialectDocument } from '../../src/simulator/dialect-document.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { ETF_FLOWS } from '../helpers/fixtures.js';
import { FIXED_SEEDS, SAMPLE_FILTERS, traitValues } from '../helpers/dialect-seeds.js';
import { get, withSimulator } from '../helpers/http.js';
import { replayPropertySeed } from '../helpers/property-seed.js';
import { publishedNames, readPage, servedDataset, upstreamList, upstreamName } from '../helpers/upstream.js';

replayPropertySeed();

type Json = Record<string, unknown>;
const seeds = fc.integer({ min: 0, max: 9_999_999 });
const ROOMY = { limits: { perWindow: 1_000_000, perIpPerWindow: 1_000_000 } };

test('every composed dialect publishes a valid OpenAPI document, 3.0 or 3.1, a registry dataset included', async () => {
  await fc.assert(
    fc.asyncProperty(seeds, async (seed) => {
      const dialect = dialectNamed(`seed:${seed}`);
      const document = dialectDocument([...DATASETS, ETF_FLOWS], dialect, 'http://127.0.0.1:9');
      const result = await validate(structuredClone(document) as never);
      assert.ok(result.valid, `${describeDialect(dialect)}\n${result.valid ? '' : compileErrors(result)}`);
    }),
    { numRuns: 40 },
  );
});

test('the fixed seeds CI runs cover every value of every trait', () => {
  const seen = new Map<string, Set<string>>();
  for (const seed of FIXED_SEEDS)
    for (const [trait, value] of traitValues(dialectNamed(`seed:${seed}`))) {
      if (!seen.has(trait)) seen.set(trait, new Set());
      seen.get(trait)?.add(value);
    }
  const missing: string[] = [];
  // Every value any seed can take, from a wide sample of seeds: 3000 past the first that draws the later paging forms.
  for (let seed = 0; seed < LATER_PAGING_FROM_SEED + 3000; seed += 1)
    for (const [trait, value] of traitValues(dialectNamed(`seed:${seed}`)))
      if (!seen.get(trait)?.has(value) && !missing.includes(`${trait}=${value}`)) missing.push(`${trait}=${value}`);
  assert.deepEqual(missing, [], `values no fixed seed serves: ${missing.join(', ')}`);
});

/** The 200 schema and parameter names of a path in a dereferenced document (servers with a base path included). */
function operationOf(document: Json, path: string): { names: Set<string>; schema: Json | undefined; linkHeader: boolean } {
  const servers = document['servers'] as { url: string }[] | undefined;
  const relative = servers ? path.replace(/^\/v1/, '') : path;
  const item = (document['paths'] as Record<string, Json>)[relative];
  assert.ok(item, `the document lists ${relative}`);
  const operation = item['get'] as Json;
  const params = [...((item['parameters'] as Json[] | undefined) ?? []), ...((operation['parameters'] as Json[] | undefined) ?? [])];
  const ok = (operation['responses'] as Record<string, Json>)['200'] ?? {};
  const content = (ok['content'] as Record<string, Json> | undefined)?.['application/json'];
  return {
    // A deepObject parameter (JSON:API's `page`) is sent as its members, `page[size]=..&page[number]=..`.
    names: new Set(
      params
        .filter((p) => p['in'] === 'query')
        .flatMap((p) =>
          p['style'] === 'deepObject'
            ? Object.keys(((p['schema'] as Json | undefined)?.['properties'] as Json | undefined) ?? {}).map(
                (m) => `${String(p['name'])}[${m}]`,
              )
            : [String(p['name'])],
        ),
    ),
    schema: content?.['schema'] as Json | undefined,
    linkHeader: ok['headers'] !== undefined && 'Link' in (ok['headers'] as Json),
  };
}

function bodyValidator(dialect: Dialect, schema: Json): (body: unknown) => string | undefined {
  const ajv =
    dialect.traits.version === '3.0'
      ? new Ajv({ strict: false, validateFormats: false })
      : new Ajv2020({ strict: false, validateFormats: false });
  const check = ajv.compile(schema);
  return (body) => (check(body) ? undefined : ajv.errorsText(check.errors));
}

async function servesWhatItPublishes(sim: RunningSimulator, dataset: DatasetDefinition): Promise<void> {
  const dialect = sim.api.dialect;
  const label = `${describeDialect(dialect)} ${dataset.operationId}`;
  const document = (await dereference(
    structuredClone((await get(sim, '/v1/openapi.json', 'sim-admin-key')).body) as never,
  )) as unknown as Json;
  const operation = operationOf(document, dataset.path);
  assert.deepEqual(
    [...operation.names].sort(),
    [...publishedNames(sim, dataset.path)].sort(),
    `${label}: the document lists what is served`,
  );

  const filters = SAMPLE_FILTERS[dataset.operationId] ?? {};
  const ticker = dataset.path.includes('dealer') ? 'SPY' : 'AAPL';
  const mark = sim.api.requests.length;
  const read = await upstreamList(sim, dataset.path, { ticker, filters });
  assert.ok(read.rows.length > 0, `${label}: rows`);
  const sent = sim.api.requests.slice(mark);
  for (const request of sent) {
    assert.equal(request.status, 200, `${label}: ${request.path}${request.query}`);
    for (const name of new URLSearchParams(request.query).keys()) assert.ok(operation.names.has(name), `${label}: sent ${name}`);
  }

  // Each page's body is what the 200 schema describes.
  if (operation.schema) {
    const problems = bodyValidator(dialect, operation.schema);
    const first = await get(sim, `${sent[0]?.path ?? ''}${sent[0]?.query ?? ''}`, 'sim-admin-key');
    assert.equal(problems(first.body), undefined, `${label}: the first page's body against its schema`);
    assert.equal(
      first.headers.has('link'),
      operation.linkHeader && first.headers.has('link'),
      `${label}: a Link header only where documented`,
    );
    readPage(dialect, servedDataset(sim, dataset.path), first.body);
  }

  // A name the document does not list is refused, as the spec says of unknown parameters.
  const named = Object.fromEntries(Object.entries(filters).map(([ours, value]) => [upstreamName(sim, dataset.path, ours) ?? ours, value]));
  const stray = await get(
    sim,
    `${dataset.path.replace('{ticker}', ticker)}?${new URLSearchParams({ ...named, not_listed: '1' }).toString()}`,
    'sim-admin-key',
  );
  assert.equal(stray.status, 400, `${label}: an unlisted parameter`);
  assert.equal((stray.body as { error?: { code?: string } }).error?.code, 'VALIDATION_ERROR');
}

test('a composed dialect serves exactly what it publishes: its names and no other, bodies its schemas describe, paging to the end', async () => {
  const paths = [...DATASETS, ETF_FLOWS].map((d) => d.path);
  await fc.assert(
    fc.asyncProperty(seeds, fc.subarray(paths, { minLength: 3, maxLength: 6 }), async (seed, picked) => {
      await withSimulator({ ...ROOMY, dialect: `seed:${seed}`, extraDatasets: [ETF_FLOWS] }, async (sim) => {
        for (const path of picked) await servesWhatItPublishes(sim, servedDataset(sim, path));
      });
    }),
    { numRuns: 12, includeErrorInReport: true },
  );
});
