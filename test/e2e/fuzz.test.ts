/**
 * Fuzzed tool calls over every tool's advertised input schema: values that fit it,
 * values of every other JSON type, nulls, huge and broken strings, names it does not
 * have (host control properties and prototype keys included). For each call: no crash,
 * no protocol error, an error always readable with its code, never INTERNAL_ERROR, and
 * no request to a data endpoint when the schema refuses the input.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation';
import fc from 'fast-check';
import { DATASETS, paramJsonSchema } from '../../src/catalog/index.js';
import { HOST_CONTROL_PROPERTIES } from '../../src/mcp/arguments/screen.js';
import { toolNameOf } from '../../src/mcp/tools/dataset-tool.js';
import { createServer } from '../../src/mcp/server.js';
import { createRuntime } from '../../src/runtime.js';
import { withSimulator } from '../helpers/http.js';
import { errorInText, textOf, freshCacheDir } from '../helpers/mcp.js';
import { PROPERTY_SEED } from '../helpers/property-seed.js';

/** Calls per tool: a few thousand in all, a few seconds in CI. */
const RUNS_PER_TOOL = 80;
const META_PATHS = /^\/v1\/(openapi\.json|discover|health)$/;

interface PropertySchema {
  type?: string;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  items?: { pattern?: string };
}

function fitting(schema: PropertySchema): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'integer':
      return fc.integer({ min: (schema.minimum ?? 0) - 2, max: Math.min(schema.maximum ?? 1000, 1e6) + 2 });
    case 'number':
      return fc.double({ min: (schema.minimum ?? 0) - 1, max: (schema.maximum ?? 1000) + 1, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(
        fc.oneof(
          fc.constantFrom('ticker', 'short_float_pct', 'date', 'volume'),
          fc.stringMatching(new RegExp(schema.items?.pattern ?? '^\\w+$')),
        ),
        { maxLength: 4 },
      );
    default:
      return schema.pattern ? fc.stringMatching(new RegExp(schema.pattern), { maxLength: 40 }) : fc.string({ maxLength: 20 });
  }
}

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.constantFrom(true, '0x10', [5], -1, 0, 1e308, '', ' ', '..', '../../v1/discover', 'SP\uD800Y', 'spy', 'A'.repeat(100_000)),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.jsonValue({ maxDepth: 3 }),
);

const extraNames = fc.constantFrom(
  '__proto__',
  'constructor',
  'toString',
  'prototype',
  'ticker',
  'fields',
  'colour',
  ...HOST_CONTROL_PROPERTIES,
);

function argumentsFor(schema: { properties?: Record<string, PropertySchema> }): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(schema.properties ?? {});
  const own = properties.map(([name, body]) =>
    fc.option(
      fc.oneof({ weight: 4, arbitrary: fitting(body) }, { weight: 1, arbitrary: hostile }).map((value) => [name, value] as const),
      { freq: 3 },
    ),
  );
  const extra = fc.option(fc.tuple(extraNames, fc.oneof(hostile, fc.constant('SPY'))), { freq: 4 });
  return fc.tuple(fc.tuple(...own), extra).map(([entries, added]) => {
    const all = [...entries, added].filter((entry): entry is readonly [string, unknown] => entry !== null);
    // Through JSON, as a host sends it: own `__proto__` keys survive, undefined and NaN do not.
    return JSON.parse(JSON.stringify(Object.fromEntries(all))) as Record<string, unknown>;
  });
}

/**
 * What the schema is asked about: nulls mean omitted and host control properties are
 * dropped (both documented); an own `__proto__` key never reaches a tool, since the SDK's
 * message parsing (zod) strips it, so it is not part of the call either. A list parameter
 * (a document's `symbols` as an array) takes its values joined by commas too, the form the
 * catalog's own lists take (src/catalog/validate.ts): such a text is the list it joins.
 */
function asTheSchemaSeesIt(
  args: Record<string, unknown>,
  schema: { properties?: Record<string, PropertySchema> },
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args)
      .filter(([name, value]) => value !== null && name !== '__proto__' && !HOST_CONTROL_PROPERTIES.includes(name))
      .map(([name, value]) =>
        schema.properties?.[name]?.type === 'array' && typeof value === 'string' && value.length <= 4096
          ? [name, value.split(',')]
          : [name, value],
      ),
  );
}

/**
 * The properties as the server checks them, keywords and all. The advertised schema says
 * bounds, defaults and patterns in words (some hosts strip the keywords), which a generator
 * cannot read: drawn from it alone, almost no value would be valid.
 */
function checkedSchema(
  toolName: string,
  advertised: { properties?: Record<string, PropertySchema> },
): { properties?: Record<string, PropertySchema> } {
  const dataset = DATASETS.find((d) => toolNameOf(d) === toolName);
  if (!dataset) return advertised;
  const params: Record<string, Parameters<typeof paramJsonSchema>[0] | undefined> = {
    ...(dataset.ticker ? { ticker: dataset.ticker } : {}),
    ...(dataset.toolOutput ? {} : dataset.query),
    ...dataset.shaping,
  };
  const properties = Object.entries(advertised.properties ?? {}).map(([name, body]) => {
    const param = params[name];
    return [name, param ? { ...body, ...(paramJsonSchema(param).schema as PropertySchema) } : body] as const;
  });
  return { properties: Object.fromEntries(properties) };
}

// CI replays one seed (see PROPERTY_SEED).
const FUZZ_SEED = PROPERTY_SEED;

test('fuzzed calls to every tool: no crash, no protocol error, readable errors, nothing sent for what the schema refuses', async () => {
  await withSimulator({ limits: { perWindow: 1_000_000, perIpPerWindow: 1_000_000, inFlight: 50 } }, async (sim) => {
    const runtime = await createRuntime({
      MARKET_DATA_BASE_URL: sim.url,
      MARKET_DATA_API_KEY: 'sim-admin-key',
      MARKET_DATA_LOG_LEVEL: 'silent',
      MARKET_DATA_CACHE_DIR: freshCacheDir(),
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'fuzz', version: '1' });
    const ajv = new AjvJsonSchemaValidator();
    const dataRequests = (): number => sim.api.requests.filter((r) => !META_PATHS.test(r.path)).length;
    let calls = 0;
    let refusedBySchema = 0;
    try {
      await createServer(runtime.deps).connect(serverTransport);
      await client.connect(clientTransport);
      const { tools } = await client.listTools();
      for (const tool of tools) {
        const schemaAccepts = ajv.getValidator(tool.inputSchema as JsonSchemaType);
        await fc.assert(
          fc.asyncProperty(
            argumentsFor(checkedSchema(tool.name, tool.inputSchema as { properties?: Record<string, PropertySchema> })),
            async (args) => {
              const before = dataRequests();
              const result = await client.callTool({ name: tool.name, arguments: args });
              calls += 1;
              if (result.isError === true) {
                const error = errorInText(textOf(result));
                assert.equal(typeof error.code, 'string', `${tool.name}: the error has a code`);
                assert.notEqual(error.code, 'INTERNAL_ERROR', `${tool.name} ${JSON.stringify(args).slice(0, 200)}: ${textOf(result)}`);
              }
              if (!schemaAccepts(asTheSchemaSeesIt(args, tool.inputSchema as { properties?: Record<string, PropertySchema> })).valid) {
                refusedBySchema += 1;
                assert.equal(dataRequests(), before, `${tool.name} ${JSON.stringify(args).slice(0, 200)} reached the API`);
              }
            },
          ),
          { numRuns: RUNS_PER_TOOL, ...FUZZ_SEED },
        );
      }
      process.stderr.write(`fuzz: ${calls} calls over ${tools.length} tools, ${refusedBySchema} refused by the schema\n`);
      assert.ok(refusedBySchema > calls / 10, 'the fuzz reaches refusals');
      // Valid calls repeat often enough that the cache answers many: a run sends 54 to 71 data
      // requests; the bound only proves valid calls do get through, not how many.
      assert.ok(calls - refusedBySchema > calls / 10, 'the fuzz makes valid calls too');
      assert.ok(dataRequests() > 20, 'the fuzz reaches the API with valid calls too');
    } finally {
      await client.close();
      await runtime.close();
    }
  });
});
