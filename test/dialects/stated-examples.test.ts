/**
 * tools/list as a host reads it, in every dialect under test, from an upstream whose
 * document writes currency pairs as `EUR/USD`: no example any tool's parameter words give
 * is refused by that tool's advertised schema, and the FX pair shows one it takes.
 * (test/catalog/stated-examples.test.ts holds generated patterns to the same.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { DATASETS, type DatasetDefinition } from '../../src/catalog/index.js';
import { describeDialect, dialectNamed } from '../../src/simulator/dialect.js';
import { withSession } from '../helpers/answers-harness.js';
import { dialectsUnderTest } from '../helpers/dialect-seeds.js';
import { advertisedTakes, examplesIn, sent } from '../helpers/stated-examples.js';

type Json = Record<string, unknown>;

const SLASHED_PAIRS: DatasetDefinition[] = DATASETS.flatMap((dataset) =>
  dataset.operationId === 'macro.forex_rate'
    ? [
        {
          ...dataset,
          query: {
            pair: z
              .string()
              .regex(/^[A-Z]{3}\/[A-Z]{3}$/)
              .describe('Currency pair as base and quote ISO 4217 codes, e.g. EURUSD.'),
          },
        },
      ]
    : [],
);

for (const { name: dialect, random } of dialectsUnderTest()) {
  test(`${dialect}: no example in tools/list is refused by its tool's schema`, { todo: random ? 'random seed' : false }, async () => {
    const traits = describeDialect(dialectNamed(dialect));
    await withSession(
      {},
      async ({ client }) => {
        const { tools } = await client.listTools();
        let held = 0;
        for (const tool of tools) {
          const properties = (tool.inputSchema.properties ?? {}) as Record<string, Json>;
          for (const [name, property] of Object.entries(properties)) {
            const words = typeof property['description'] === 'string' ? property['description'] : '';
            for (const example of examplesIn(words)) {
              assert.ok(advertisedTakes(property, sent(property, example)), `${tool.name}.${name} shows ${example}: ${words} ${traits}`);
              held += 1;
            }
          }
        }
        assert.ok(held > 0, 'tools/list gives examples');
        const pair = tools.find((t) => t.name === 'macro_forex_rate')?.inputSchema.properties?.['pair'] as Json | undefined;
        const words = typeof pair?.['description'] === 'string' ? pair['description'] : '';
        assert.deepEqual(examplesIn(words), ['EUR/USD'], `the pair's example is one it takes: ${words} ${traits}`);
      },
      'sim-live-key',
      { dialect, extraDatasets: SLASHED_PAIRS },
    );
  });
}
