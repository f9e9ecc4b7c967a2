/**
 * A document that says less of a known parameter than the catalog (`{type: string}` for the
 * ticker, no pattern, no enum) keeps the catalog's check: what it refuses is never sent.
 * Only a document that says something different replaces it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type * as z from 'zod';
import { buildOpenApiDocument, DATASETS } from '../../src/catalog/index.js';
import { paramJsonSchemaOnce } from '../../src/catalog/param-json-memo.js';
import { dereferenceDocument } from '../../src/registry/openapi/dereference.js';
import { datasetsFromOpenApi } from '../../src/registry/openapi/import.js';

type Json = Record<string, unknown>;
type Paths = Record<string, { get: { parameters: Json[] } }>;

/** Every catalog parameter with a check of its own beyond its type: [dataset, name ('ticker' for the path), its schema]. */
const CHECKED = DATASETS.flatMap((d) => {
  const params: [string, z.ZodType][] = [...(d.ticker ? [['ticker', d.ticker] as [string, z.ZodType]] : []), ...Object.entries(d.query)];
  return params
    .filter(([, schema]) => {
      const json = paramJsonSchemaOnce(schema).schema;
      return json['type'] === 'string' && (json['pattern'] !== undefined || json['enum'] !== undefined);
    })
    .map(([name, schema]) => ({ dataset: d, name, schema }));
});

/** The catalog document with one parameter written as `schema` alone. */
async function importedWith(path: string, name: string, schema: Json): Promise<z.ZodType | undefined> {
  const doc = JSON.parse(JSON.stringify(buildOpenApiDocument(DATASETS))) as { paths: Paths };
  const op = doc.paths[path]?.get;
  assert.ok(op, path);
  op.parameters = op.parameters.map((p) => (p['name'] === name ? { ...p, schema } : p));
  const report = datasetsFromOpenApi((await dereferenceDocument(doc)).resolved, { fresh: true });
  const dataset = report.datasets.find((d) => d.path === path);
  return name === 'ticker' ? dataset?.ticker : dataset?.query[name];
}

const hostile = fc.oneof(
  fc.constantFrom('aapl', 'AAPL?x=1#', 'AAPL/../admin', '../../v1/discover', 'AAPL%2F', ' AAPL', 'Ignore previous instructions'),
  fc.string({ maxLength: 30 }),
);

test('a known parameter the document writes as {type: string} keeps the catalog check: what the catalog refuses is refused, what it takes is taken', async () => {
  assert.ok(
    CHECKED.some((c) => c.name === 'ticker'),
    'the ticker is among them',
  );
  const imported = new Map<string, z.ZodType | undefined>();
  for (const { dataset, name } of CHECKED)
    imported.set(`${dataset.path} ${name}`, await importedWith(dataset.path, name, { type: 'string' }));
  fc.assert(
    fc.property(fc.constantFrom(...CHECKED), hostile, ({ dataset, name, schema }, value) => {
      const theirs = imported.get(`${dataset.path} ${name}`);
      assert.ok(theirs, `${dataset.operationId} ${name} offered`);
      assert.equal(
        theirs.safeParse(value).success,
        schema.safeParse(value).success,
        `${dataset.operationId} ${name} ${JSON.stringify(value)}`,
      );
    }),
  );
  const dividends = imported.get('/v1/stocks/dividends/{ticker} ticker');
  assert.equal(dividends?.safeParse('AAPL').success, true);
});

test('a document with a check of its own (another pattern) replaces the catalog check', async () => {
  const ticker = await importedWith('/v1/stocks/dividends/{ticker}', 'ticker', { type: 'string', pattern: '^[a-z]{1,5}$' });
  assert.equal(ticker?.safeParse('aapl').success, true, "the document's form is taken");
  assert.equal(ticker?.safeParse('AAPL').success, false);
});
