/**
 * No example a tool shows is one it refuses. Documents generated in every named dialect and
 * fixed seed replace the catalog's patterns with generated ones (a currency pair with a
 * separator, a prefix or lower case; an OSI contract with a vendor prefix; a ticker of a
 * dataset the upstream adds, shorter or lower case), and curated tool texts name examples:
 * every example every parameter description of every tool gives (e.g., for example, such
 * as; quoted or bare) passes the advertised schema and the tool's own check, and so does
 * every example a tool's description gives of a parameter. Where one of the catalog's
 * samples passes, the pair still shows one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import * as z from 'zod';
import {
  DATASETS,
  GENERAL_TICKER_PATTERN,
  OSI_CONTRACT_PATTERN,
  validateAgentParam,
  type DatasetDefinition,
} from '../../src/catalog/index.js';
import { PARAM_SAMPLES } from '../../src/catalog/param-samples.js';
import { toolInputJsonSchema } from '../../src/mcp/arguments/input-schema.js';
import { dereferenceDocument } from '../../src/registry/openapi/dereference.js';
import { datasetsFromOpenApi } from '../../src/registry/openapi/import.js';
import { DIALECT_NAMES, dialectNamed, type Dialect } from '../../src/simulator/dialect.js';
import { dialectDocument } from '../../src/simulator/dialect-document.js';
import { FIXED_SEEDS } from '../helpers/dialect-seeds.js';
import { replayPropertySeed } from '../helpers/property-seed.js';
import { advertisedTakes, examplesIn, sent } from '../helpers/stated-examples.js';

replayPropertySeed();

type Json = Record<string, unknown>;
const ORIGIN = 'https://api.example.test';
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A dataset the upstream adds whose ticker has no words of the document's: the catalog's ticker words stand. */
const ADDED: DatasetDefinition = {
  operationId: 'etf.holdings',
  path: '/v1/etf/holdings/{ticker}',
  title: 'ETF holdings',
  description: 'Holdings of one ETF.',
  ticker: z.string().regex(GENERAL_TICKER_PATTERN),
  query: {},
  onDemand: false,
  cacheClass: 'daily',
};

/** Curated tool texts that name an example of one of their parameters. */
const TOOL_TEXTS: Readonly<Record<string, string>> = {
  'macro.forex_rate': 'Current FX spot rate of one currency pair (e.g. EURUSD, GBPJPY).',
  'options.chain_history': 'Best-bid-and-offer bars of one option chain; narrow to one contract, for example SPY261218C00600000.',
};
const CATALOG = DATASETS.map((d) => (TOOL_TEXTS[d.operationId] ? { ...d, description: TOOL_TEXTS[d.operationId] ?? '' } : d));

interface Patterns {
  pair: string;
  contract: string;
  ticker: string;
}

const patterns: fc.Arbitrary<Patterns> = fc.record({
  pair: fc
    .record({
      prefix: fc.constantFrom('', 'C:', 'FX:'),
      separator: fc.constantFrom('', '/', '_', '-', '.'),
      letters: fc.constantFrom('[A-Z]', '[a-z]', '[A-Za-z]'),
    })
    .map(({ prefix, separator, letters }) => `^${escaped(prefix)}${letters}{3}${escaped(separator)}${letters}{3}$`),
  contract: fc
    .record({ prefix: fc.constantFrom('', 'O:'), space: fc.constantFrom('', ' '), strike: fc.constantFrom('\\d{8}', '\\d{3,8}') })
    .map(({ prefix, space, strike }) => `^${escaped(prefix)}[A-Z]{1,6}${space}\\d{6}[CP]${strike}$`),
  ticker: fc
    .record({ letters: fc.constantFrom('[A-Z]', '[a-z]', '[A-Z0-9]'), most: fc.integer({ min: 1, max: 6 }), suffix: fc.boolean() })
    .map(({ letters, most, suffix }) => `^${letters}{1,${most}}${suffix ? '(\\.[A-Z])?' : ''}$`),
});

/** Replaces each of the catalog's patterns the document states with the generated one for it. */
function rewritePatterns(document: Json, generated: Patterns): void {
  const ours: Record<string, string> = {
    '^[A-Z]{6}$': generated.pair,
    [OSI_CONTRACT_PATTERN.source]: generated.contract,
  };
  const paths = isJson(document['paths']) ? document['paths'] : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isJson(item)) continue;
    const lists = [item['parameters'], isJson(item['get']) ? item['get']['parameters'] : undefined];
    for (const param of lists.flatMap((list): unknown[] => (Array.isArray(list) ? (list as unknown[]) : []))) {
      if (!isJson(param) || !isJson(param['schema'])) continue;
      const schema = param['schema'];
      const pattern = typeof schema['pattern'] === 'string' ? schema['pattern'] : undefined;
      const replaced = pattern === undefined ? undefined : ours[pattern];
      if (replaced) param['schema'] = { ...schema, pattern: replaced };
      if (path.includes('/etf/holdings/') && param['in'] === 'path') param['schema'] = { type: 'string', pattern: generated.ticker };
    }
  }
}

/** A parameter's check, by its MCP-side name. */
function checkOf(dataset: DatasetDefinition, name: string): z.ZodType | undefined {
  if (name === 'ticker') return dataset.ticker;
  return dataset.shaping?.[name] ?? dataset.query[name];
}

const DIALECTS: Dialect[] = [
  ...DIALECT_NAMES.map((name) => dialectNamed(name)),
  ...FIXED_SEEDS.map((seed) => dialectNamed(`seed:${seed}`)),
];

for (const dialect of DIALECTS) {
  test(`${dialect.name}: every example a tool's words give passes that tool's schema, whatever pattern the document states`, async () => {
    const { resolved } = await dereferenceDocument(dialectDocument([...DATASETS, ADDED], dialect, ORIGIN));
    fc.assert(
      fc.property(patterns, (generated) => {
        const document = JSON.parse(JSON.stringify(resolved)) as Json;
        rewritePatterns(document, generated);
        const report = datasetsFromOpenApi(document, { baseUrl: ORIGIN, fresh: true, catalog: CATALOG });
        let held = 0;
        for (const dataset of report.datasets) {
          const properties = (toolInputJsonSchema(dataset)['properties'] ?? {}) as Record<string, Json>;
          for (const [name, property] of Object.entries(properties)) {
            const words = typeof property['description'] === 'string' ? property['description'] : '';
            const check = checkOf(dataset, name);
            for (const example of examplesIn(words)) {
              const where = `${dataset.operationId}.${name} ${JSON.stringify(property)} in ${JSON.stringify(generated)}`;
              assert.ok(advertisedTakes(property, sent(property, example)), `${where}: the advertised schema refuses ${example}`);
              if (check)
                assert.ok(validateAgentParam(dataset, name, check, sent(property, example)).ok, `${where}: the tool refuses ${example}`);
              held += 1;
            }
          }
          // A tool text's example of a parameter: what the catalog's check for that parameter took, the served one takes.
          const curated = CATALOG.find((d) => d.operationId === dataset.operationId);
          for (const example of curated ? examplesIn(dataset.description) : []) {
            for (const [name, ours] of [['ticker', curated?.ticker] as const, ...Object.entries(curated?.query ?? {})]) {
              if (!ours?.safeParse(example).success) continue;
              const served = checkOf(dataset, name);
              assert.ok(served?.safeParse(example).success, `${dataset.operationId}: its text shows ${example}, which ${name} refuses`);
              held += 1;
            }
          }
        }
        assert.ok(held > 0, 'examples were read');
        const pair = report.datasets.find((d) => d.operationId === 'macro.forex_rate');
        assert.ok(pair);
        const pairProperty = (toolInputJsonSchema(pair)['properties'] as Record<string, Json>)['pair'];
        const pairWords = typeof pairProperty?.['description'] === 'string' ? pairProperty['description'] : '';
        const passing = (PARAM_SAMPLES['pair'] ?? []).some((sample) => pair.query['pair']?.safeParse(sample).success);
        assert.equal(examplesIn(pairWords).length, passing ? 1 : 0, `the pair shows a sample it takes, where one does: ${pairWords}`);
      }),
      { numRuns: 8 },
    );
  });
}
