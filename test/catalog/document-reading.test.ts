/**
 * The registry reads the upstream's document an operation at a time
 * (src/registry/openapi/document-source.ts): each path item cleaned and its references
 * resolved when the import asks for it. What it reads must be what cleaning the whole answer
 * and resolving the whole document gave, and a registry far beyond the import's cap must not
 * be read beyond it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildOpenApiDocument, DATASETS } from '../../src/catalog/index.js';
import { dereferenceDocument } from '../../src/registry/openapi/dereference.js';
import { openDocument, plainSource, type DocumentSource } from '../../src/registry/openapi/document-source.js';
import { listOperations, readListed, Unusable } from '../../src/registry/openapi/operations.js';
import {
  datasetsFromOpenApi,
  importOperations,
  MAX_IMPORTED_DATASETS,
  settleImport,
  type ImportReport,
} from '../../src/registry/openapi/import.js';
import { toolInputJsonSchema } from '../../src/mcp/arguments/input-schema.js';
import { sanitizeDeep } from '../../src/sanitize.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

type Json = Record<string, unknown>;

/**
 * Names a document may use, some of them equal once cleaned, or holding what a JSON pointer
 * escapes. Not a `%` that escapes nothing: the library throws on such a key wherever its crawl
 * meets it, which left a whole document unresolved, and now only the items that reach it.
 */
const NAMES = ['A', 'B', 'C', 'C\u200b', 'D/E', 'F~G', 'H I'];
const PATHS = ['/v1/a', '/v1/b', '/v1/c', '/v1/c\u200b', '/v1/d/{x}', '/v1/e~f'];
const pointer = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('\u202eflip', 'z'.repeat(2100), 'a\u0000b', '\u{E0041}tag', 'plain words'),
);

/** A reference as documents write them: to a component (by a pointer, percent escaped or not), to nothing, into a path item, to a whole section. */
const reference = fc.oneof(
  fc.constantFrom(...NAMES).map((name) => `#/components/schemas/${pointer(name)}`),
  fc.constantFrom(...NAMES).map((name) => `#/components/schemas/${encodeURIComponent(pointer(name))}`),
  fc.constantFrom(...NAMES).map((name) => `#/components/parameters/${pointer(name)}`),
  fc.constantFrom(...PATHS).map((path) => `#/paths/${pointer(path)}/get/parameters/0`),
  fc.constantFrom('#/components/schemas/Missing', '#/nowhere/x', '#/components/schemas/D/E', 'other.json#/A'),
);

const { schema } = fc.letrec<{ schema: Json }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constantFrom('string', 'integer'), description: text }),
    fc.record({ $ref: reference }),
    fc.record({ type: fc.constant('object'), properties: fc.dictionary(fc.constantFrom(...NAMES), tie('schema'), { maxKeys: 2 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ enum: fc.array(text, { minLength: 1, maxLength: 3 }) }),
  ),
}));

const parameter = fc.oneof(fc.record({ name: text, in: fc.constantFrom('query', 'path'), schema }), fc.record({ $ref: reference }));

const answer = fc.record({ description: text, content: fc.record({ 'application/json': fc.record({ schema }) }) });
const operation = fc.record(
  {
    operationId: text,
    summary: text,
    parameters: fc.array(parameter, { maxLength: 3 }),
    // An error answer is never read: it is not resolved either.
    responses: fc.record({ 200: answer, 422: answer }, { requiredKeys: ['200'] }),
  },
  { requiredKeys: ['operationId', 'responses'] },
);
// Nor is another method.
const item = fc.record({ get: operation, post: operation }, { requiredKeys: ['get'] });

const document = fc.record({
  openapi: fc.constantFrom('3.1.0', '3.0.3'),
  paths: fc.dictionary(fc.constantFrom(...PATHS), item, { minKeys: 1, maxKeys: 4 }),
  components: fc.record({
    schemas: fc.dictionary(fc.constantFrom(...NAMES), schema, { maxKeys: 4 }),
    parameters: fc.dictionary(fc.constantFrom(...NAMES), parameter, { maxKeys: 2 }),
  }),
});

/** What the importer reads of each operation of a document: the operation, or why it cannot be used. */
function readAll(source: DocumentSource): unknown {
  const listed = listOperations(source, 'https://api.example.test');
  const read = listed.operations.map((entry) => {
    try {
      return readListed(source, entry);
    } catch (error) {
      if (!(error instanceof Unusable)) throw error;
      return { key: entry.key, unusable: error.message };
    }
  });
  return { basePath: listed.basePath, skipped: listed.skipped, read };
}

test('every operation read alone reads as in the document cleaned and resolved whole', async () => {
  await fc.assert(
    fc.asyncProperty(document, async (generated) => {
      // As the client parses it (fast-check's records may have no prototype).
      const raw = JSON.parse(JSON.stringify(generated)) as Json;
      const whole = plainSource((await dereferenceDocument(sanitizeDeep(raw, 2000))).resolved);
      const source = await openDocument(raw);
      assert.deepEqual(source.keys, whole.keys, 'the keys, cleaned as a whole cleaning names them');
      // Where a cycle is cut (which `$ref` text is left) depends on the order references are met: never read.
      assert.deepEqual(readAll(source), readAll(whole));
    }),
    { numRuns: 200 },
  );
});

test('a description beside a reference is read where it is written', async () => {
  const raw = {
    openapi: '3.1.0',
    paths: {
      '/v1/a/{ticker}': {
        get: {
          operationId: 'a.rows',
          parameters: [{ $ref: '#/components/parameters/Ticker', description: 'The ticker of these rows.' }],
        },
      },
    },
    components: {
      parameters: { Ticker: { name: 'ticker', in: 'path', required: true, description: 'A ticker.', schema: { type: 'string' } } },
    },
  };
  const source = await openDocument(raw);
  const get = (source.item('/v1/a/{ticker}') as { get: { parameters: Json[] } }).get;
  assert.equal(get.parameters[0]?.['description'], 'The ticker of these rows.');
  assert.equal(get.parameters[0]?.['name'], 'ticker', 'and the rest is what the reference names');
});

/** A registry of `count` datasets beyond the catalog, written with references as generators write them. */
function bigRegistry(count: number): Json {
  const doc = JSON.parse(JSON.stringify(buildOpenApiDocument(DATASETS))) as Json & { paths: Json; components: Json };
  const schemas: Json = { ...(doc.components['schemas'] as Json) };
  for (let i = 0; i < count; i += 1) {
    schemas[`Rows${i}`] = { type: 'object', properties: { data: { type: 'array', items: { $ref: `#/components/schemas/Row${i}` } } } };
    schemas[`Row${i}`] = { type: 'object', properties: { day: { type: 'string' }, value: { type: 'number' } } };
    doc.paths[`/v1/bench/d${i}/{ticker}`] = {
      get: {
        operationId: `bench.d${i}`,
        summary: `Dataset ${i}`,
        parameters: [{ $ref: '#/components/parameters/Ticker' }, { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 50 } }],
        responses: { 200: { description: 'rows', content: { 'application/json': { schema: { $ref: `#/components/schemas/Rows${i}` } } } } },
      },
    };
  }
  doc.components = {
    ...doc.components,
    schemas,
    parameters: { Ticker: { name: 'ticker', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Z]{1,5}$' } } },
  };
  return doc;
}

test('a registry of 500 datasets is read no further than the datasets the import takes, its answer models when first asked for, and imports as the whole document did', async () => {
  const raw = bigRegistry(500);
  const whole = datasetsFromOpenApi((await dereferenceDocument(raw)).resolved, { fresh: true });
  // The registry hashes the text it received; the reader reads the parsed document.
  const received = JSON.stringify(raw);
  // Each operation counted as the reader first reads more of it than its id, each answer model as it first reads it.
  const opened = new Set<string>();
  const paths = raw['paths'] as Record<string, Json>;
  for (const [key, value] of Object.entries(paths)) {
    const get = new Proxy(value['get'] as Json, {
      get: (target, name, receiver) => {
        if (name !== 'operationId') opened.add(key);
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
    paths[key] = { get };
  }
  const schemas = (raw['components'] as Json)['schemas'] as Record<string, Json>;
  for (const [name, value] of Object.entries(schemas))
    schemas[name] = new Proxy(value, { ownKeys: (target) => (opened.add(name), Reflect.ownKeys(target)) });

  const read = importOperations(await openDocument(raw, received), { fresh: true });
  assert.deepEqual(read.added, whole.added);
  assert.deepEqual(read.skipped, whole.skipped);
  assert.equal(read.added.length, MAX_IMPORTED_DATASETS);
  // What tools/list shows of each (name, words, input schema), as the document resolved whole gives it.
  const listed = (report: ImportReport): unknown[] =>
    report.datasets.map((d) => ({ id: d.operationId, title: d.title, description: d.description, input: toolInputJsonSchema(d) }));
  assert.deepEqual(listed(read), listed(whole));
  const beyond = Object.keys(paths).filter((key) => /\/bench\/d(\d+)\//.test(key) && Number(/d(\d+)\//.exec(key)?.[1]) >= 110);
  assert.equal(beyond.length, 390);
  assert.deepEqual(
    beyond.filter((key) => opened.has(key)),
    [],
    'no operation beyond the cap (and a few read ahead) is opened',
  );
  assert.ok(!opened.has('Rows200') && !opened.has('Row499'), 'nor the answer models only they name');
  assert.ok(!opened.has('Rows0') && !opened.has('Row99'), 'nor, to list the datasets taken, their answer models');
  // A dataset's answer model is read when its row fields are first asked for (a call with `fields`).
  const fieldsOf = (report: ImportReport, key: string): unknown =>
    report.datasets.find((d) => report.keys[d.operationId] === key)?.responseFields;
  assert.deepEqual(fieldsOf(read, '/v1/bench/d99/{ticker}'), ['day', 'value']);
  assert.ok(opened.has('Rows99') && opened.has('Row99') && !opened.has('Rows0'), 'that one only');
  // The rest when the registry settles the import, after the first answer (its document is then let go).
  settleImport(read);
  assert.ok(opened.has('Rows0'));
  for (const key of read.accepted.filter((k) => k.startsWith('/v1/bench/')))
    assert.deepEqual(fieldsOf(read, key), fieldsOf(whole, key), `the row fields of ${key}, as the whole document gives them`);
});
