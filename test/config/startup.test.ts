/**
 * What keeps the first answer near the floor (BENCHMARKS.md measures it): the built
 * binary's first module graph holds neither the simulator nor the HTTP transport, and no
 * undici anywhere; the build's prebuilt work matches what a start would compute; an OpenAPI
 * document identical to one already applied is not imported again.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { buildOpenApiDocument, DATASETS } from '../../src/catalog/index.js';
import { datasetsFromOpenApi } from '../../src/registry/openapi/import.js';
import { createLogger } from '../../src/log.js';
import { DatasetRegistry } from '../../src/registry/dataset-registry.js';
import { computePrebuilt, loadPrebuilt } from '../../src/prebuilt.js';
import type { DatasetParamJson } from '../../src/catalog/param-json-memo.js';
import { makeClient } from '../helpers/client.js';
import { withSimulator } from '../helpers/http.js';

const DIST = fileURLToPath(new URL('../../../dist/', import.meta.url));

/** The files node loads before running dist/cli.js: it and its static imports, transitively. */
function firstModuleGraph(): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    const text = readFileSync(join(DIST, file), 'utf8');
    seen.set(file, text);
    for (const match of text.matchAll(/^(?:import|export)\s[^;]*?from\s*["']\.\/([^"']+)["']/gm)) if (match[1]) visit(match[1]);
    for (const match of text.matchAll(/^import\s*["']\.\/([^"']+)["']/gm)) if (match[1]) visit(match[1]);
  };
  visit('cli.js');
  return seen;
}

test('the built binary loads neither the simulator nor the HTTP transport before its first answer, and no HTTP client package at all', () => {
  const graph = firstModuleGraph();
  // esbuild splits a chunk per set of entry points sharing code (stdio, --http, demo, the
  // Redis gate...), so a few more appear as entry points grow; what this guards against is
  // tsc's output of a hundred modules, each a file to read and link at start.
  // (15 since the OpenAPI importer became a lazy chunk of its own, issue 22.)
  assert.ok(graph.size <= 16, `one bundle and a few shared chunks, not ${graph.size} modules`);
  const all = [...graph.values()].join('\n');
  assert.ok(all.includes('serveStdio') || all.includes('StdioServerTransport'), 'the stdio transport is there');
  // Each of these is in some chunk of dist/ (checked first, so that a renamed symbol fails here
  // instead of passing unseen) and in none of the modules loaded before the first answer.
  const chunks = readdirSync(DIST)
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(join(DIST, f), 'utf8'))
    .join('\n');
  const loadedLater: [RegExp, string][] = [
    [/function startSimulator\b/, 'the simulator loads only in demo or simulator mode'],
    [/function serveHttp\b/, 'the HTTP transport loads only with --http'],
    // The importer of upstream documents and its RE2 engine (about 15 ms to load): not for the catalog's own document.
    [/RE2JS/, 'the RE2 engine loads with the first document that needs an import'],
    // The SDK's default JSON Schema validator (Ajv, about 290 KB evaluated at start) is replaced by src/sdk-shims.ts.
    [/require_ajv|ajv-formats/, 'no Ajv before the first answer'],
  ];
  for (const [pattern, why] of loadedLater) {
    assert.match(chunks, pattern, `${pattern} is in no chunk of dist/: the check below could not fail (${why})`);
    assert.doesNotMatch(all, pattern, why);
  }
  // Requests go through node:http: undici (about 26 MiB resident once loaded) is gone from every chunk.
  assert.doesNotMatch(chunks, /["']undici["']/, 'no undici, neither before the first answer nor after');
});

test("the importer a first start loads carries no YAML parser: the reference resolver's is never used on a parsed document", () => {
  const importer = readdirSync(DIST).filter(
    (file) => file.startsWith('bundle-') && readFileSync(join(DIST, file), 'utf8').includes('RE2JS'),
  );
  assert.equal(importer.length, 1, `the importer is one chunk: ${importer.join(', ')}`);
  const text = readFileSync(join(DIST, importer[0] as string), 'utf8');
  assert.match(text, /json-schema-ref-parser/, 'the reference resolver is in it');
  assert.doesNotMatch(text, /function loadDocuments\b|YAMLException/, "js-yaml's code is not");
});

test('the prebuilt schemas and catalog fingerprint the build wrote are what a start would compute', () => {
  const written = loadPrebuilt(new URL('prebuilt.json', `file://${DIST}`));
  assert.ok(written, 'npm run build writes dist/prebuilt.json');
  const { buildId, ...computed } = written;
  assert.deepEqual(computed, computePrebuilt());
  const cli = readFileSync(join(DIST, 'cli.js'));
  assert.equal(buildId, createHash('sha256').update(cli).digest('hex'), "the build id is the bundle's own hash");
  assert.equal(Object.keys(written.inputSchemas).length, DATASETS.length);
  // The import compares an upstream's parameters with every catalog one: a start converts none of them.
  for (const dataset of DATASETS) {
    const params: DatasetParamJson | undefined = written.paramSchemas[dataset.operationId];
    assert.ok(params, `${dataset.operationId}'s parameters are converted at build time`);
    assert.deepEqual(Object.keys(params.query).sort(), Object.keys(dataset.query).sort());
    assert.equal(params.ticker !== undefined, dataset.ticker !== undefined);
  }
});

test("importing the catalog's own document gives the catalog back, so skipping it changes nothing", () => {
  const report = datasetsFromOpenApi(JSON.parse(JSON.stringify(buildOpenApiDocument(DATASETS))));
  assert.deepEqual(report.added, []);
  assert.deepEqual(report.changed, []);
  assert.equal(report.datasets.length, DATASETS.length);
  for (const dataset of DATASETS) assert.ok(report.datasets.includes(dataset), `${dataset.operationId} is the catalog's own entry`);
});

test('a refresh that fetches the document already applied from disk does not import it again', async () => {
  await withSimulator({}, async (sim) => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'mdmcp-registry-'));
    const logs: string[] = [];
    const log = createLogger(
      'info',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logs.push(chunk.toString());
          done();
        },
      }),
    );
    const first = makeClient(sim);
    const writer = new DatasetRegistry({ client: first.client, log, sourceId: sim.url, cacheDir });
    await writer.refresh();
    writer.stop();
    await first.client.close();
    logs.length = 0;

    const { client } = makeClient(sim);
    const registry = new DatasetRegistry({
      client,
      log,
      sourceId: sim.url,
      cacheDir,
      firstRefreshDelayMs: 60_000,
    });
    try {
      await registry.start(1000);
      const imports = (): number => logs.filter((line) => line.includes('dataset registry updated')).length;
      assert.equal(imports(), 1, 'the disk copy was applied');
      assert.equal(registry.datasets().length, DATASETS.length);
      await registry.refresh();
      assert.equal(imports(), 1, 'the identical document was not imported again');
    } finally {
      registry.stop();
      await client.close();
    }
  });
});
