/**
 * A page size of 0 or less is never meant. Documents generated in every named dialect and
 * fixed seed have every page-size parameter (whatever the dialect calls it: limit,
 * page_size, pageSize, per_page; a curated list's, the dealer history's, one the upstream
 * adds) rewritten with a minimum left out, or 0, or negative, or one of its own: each tool
 * then refuses 0 and any negative page size with the structured refusal a bad value gets,
 * naming the bound, takes 1 and the document's own minimum, and advertises the floor in
 * words as it does every bound. (test/e2e/page-size-floor.test.ts shows the refusal sends
 * nothing upstream.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import * as z from 'zod';
import { DATASETS, validateAgentParam, type DatasetDefinition } from '../../src/catalog/index.js';
import { roleOf, upstreamRoles } from '../../src/catalog/param-roles.js';
import { toolInputJsonSchema } from '../../src/mcp/arguments/input-schema.js';
import { dereferenceDocument } from '../../src/registry/openapi/dereference.js';
import { datasetsFromOpenApi } from '../../src/registry/openapi/import.js';
import { plainSchema } from '../../src/registry/openapi/schema-forms.js';
import { DIALECT_NAMES, dialectNamed, type Dialect } from '../../src/simulator/dialect.js';
import { dialectDocument } from '../../src/simulator/dialect-document.js';
import { FIXED_SEEDS } from '../helpers/dialect-seeds.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

type Json = Record<string, unknown>;
const ORIGIN = 'https://api.example.test';
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A list the upstream adds, with a page size of its own (the dialect names it as it names ours). */
const ADDED: DatasetDefinition = {
  operationId: 'etf.flows',
  path: '/v1/etf/flows',
  title: 'ETF flows',
  description: 'Daily creations and redemptions.',
  query: { limit: z.coerce.number().int().min(1).max(100).default(20) },
  onDemand: false,
  cacheClass: 'daily',
};

interface PageSizeForm {
  type: 'integer' | 'number';
  /** null: the document states none. */
  minimum: number | null;
  maximum: number | null;
  nullable: 'none' | 'nullable-3.0' | 'any-of';
}

const forms: fc.Arbitrary<PageSizeForm> = fc.record({
  type: fc.constantFrom('integer', 'number'),
  minimum: fc.option(fc.integer({ min: -20, max: 30 }), { freq: 2 }),
  maximum: fc.option(fc.integer({ min: 31, max: 5000 })),
  nullable: fc.constantFrom('none', 'nullable-3.0', 'any-of'),
});

function written(form: PageSizeForm): Json {
  const schema: Json = {
    type: form.type,
    ...(form.minimum === null ? {} : { minimum: form.minimum }),
    ...(form.maximum === null ? {} : { maximum: form.maximum }),
  };
  if (form.nullable === 'nullable-3.0') return { ...schema, nullable: true };
  if (form.nullable === 'any-of') return { anyOf: [schema, { type: 'null' }] };
  return schema;
}

/** Every page-size parameter of the (resolved) document, on path items and operations alike, rewritten as `form`. */
function rewritePageSizes(document: Json, form: PageSizeForm): Set<string> {
  const rewritten = new Set<string>();
  const paths = isJson(document['paths']) ? document['paths'] : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isJson(item)) continue;
    const lists = [item['parameters'], isJson(item['get']) ? item['get']['parameters'] : undefined];
    for (const param of lists.flatMap((list): unknown[] => (Array.isArray(list) ? (list as unknown[]) : []))) {
      if (!isJson(param) || typeof param['name'] !== 'string') continue;
      // A deepObject parameter (`page` of JSON:API's `page[size]`): its members are the parameters sent.
      const members = param['style'] === 'deepObject' && isJson(param['schema']) ? param['schema']['properties'] : undefined;
      if (isJson(members)) {
        for (const [member, schema] of Object.entries(members)) {
          const plainMember = plainSchema(schema);
          if (roleOf(`${param['name']}[${member}]`, plainMember.type, plainMember.format) !== 'pageSize') continue;
          members[member] = written(form);
          rewritten.add(path);
        }
        continue;
      }
      const plain = plainSchema(param['schema']);
      if (roleOf(param['name'], plain.type, plain.format) !== 'pageSize') continue;
      param['schema'] = written(form);
      rewritten.add(path);
    }
  }
  return rewritten;
}

/** The page size an agent gives a tool, and whether the document's parameter is what checks it. */
function agentPageSize(dataset: DatasetDefinition): { name: string; schema: z.ZodType; fromDocument: boolean } | undefined {
  const properties = toolInputJsonSchema(dataset)['properties'] as Json;
  if (dataset.toolOutput) {
    const schema = dataset.shaping?.['limit'];
    return schema ? { name: 'limit', schema, fromDocument: false } : undefined;
  }
  const name = upstreamRoles(dataset).pageSize;
  if (name && name in properties && !dataset.localParams?.includes(name)) {
    const schema = dataset.query[name];
    return schema ? { name, schema, fromDocument: true } : undefined;
  }
  const local = dataset.shaping?.['limit'];
  return local ? { name: 'limit', schema: local, fromDocument: false } : undefined;
}

const DIALECTS: Dialect[] = [
  ...DIALECT_NAMES.map((name) => dialectNamed(name)),
  ...FIXED_SEEDS.map((seed) => dialectNamed(`seed:${seed}`)),
];

for (const dialect of DIALECTS) {
  test(`${dialect.name}: a page size the document leaves unbounded below is refused at 0 and below, before any request, and 1 and the document's minimum are taken`, async () => {
    const served = dialectDocument([...DATASETS, ADDED], dialect, ORIGIN);
    const { resolved } = await dereferenceDocument(served);
    fc.assert(
      fc.property(forms, fc.integer({ min: -1_000_000, max: -1 }), (form, negative) => {
        const document = JSON.parse(JSON.stringify(resolved)) as Json;
        // Some dialects page every list at a fixed size: only the dealer history's, which the server drives, is rewritten.
        const rewritten = [...rewritePageSizes(document, form)];
        const report = datasetsFromOpenApi(document, { baseUrl: ORIGIN, fresh: true });
        const floor = Math.max(form.minimum ?? 1, 1);
        let fromDocument = 0;
        for (const dataset of report.datasets) {
          const pageSize = agentPageSize(dataset);
          if (!pageSize) continue;
          const { name, schema } = pageSize;
          const least = pageSize.fromDocument ? floor : 1;
          if (pageSize.fromDocument) fromDocument += 1;
          const where = `${dataset.operationId}.${name} as ${JSON.stringify(written(form))}`;
          for (const value of [0, negative, least - 1]) {
            const checked = validateAgentParam(dataset, name, schema, value);
            assert.equal(checked.ok, false, `${where}: ${value} is refused`);
            if (checked.ok) continue;
            assert.equal(checked.refusal.code, 'VALIDATION_ERROR', where);
            assert.equal(checked.refusal.param, name, where);
            assert.match(
              `${checked.refusal.message} ${checked.refusal.hint}`,
              new RegExp(`\\b${least}\\b`),
              `${where}: the refusal names the floor`,
            );
          }
          for (const value of new Set([1, least]).values())
            if (value >= least) assert.equal(validateAgentParam(dataset, name, schema, value).ok, true, `${where}: ${value} is taken`);
          const property = (toolInputJsonSchema(dataset)['properties'] as Record<string, Json>)[name];
          const description = property?.['description'];
          const words = typeof description === 'string' ? description : '';
          assert.ok(
            words.includes(`>= ${least}`) || new RegExp(`(^|[^0-9-])${least}-\\d+`).test(words),
            `${where}: the floor is advertised in words: ${words}`,
          );
        }
        if (rewritten.some((path) => !path.includes('/dealer-gex/')))
          assert.ok(fromDocument > 0, 'some tool takes its page size from the document');
        const added = report.datasets.find((d) => d.path.endsWith('/etf/flows'));
        assert.ok(added, 'the list the upstream adds is offered');
        if (rewritten.some((path) => path.endsWith('/etf/flows')))
          assert.equal(agentPageSize(added)?.fromDocument, true, 'the added list takes the document’s page size');
      }),
      { numRuns: 6 },
    );
  });
}
