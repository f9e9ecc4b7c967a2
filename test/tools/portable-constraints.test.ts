/**
 * Codex strips pattern, minimum, maximum, format and default before its model sees a
 * schema: every range, default and date format must survive in the words of the property.
 * The bounds held are the upstream's (the simulator's dialect), which the tool checks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type * as z from 'zod';
import { DATASETS, paramJsonSchema, type DatasetDefinition } from '../../src/catalog/index.js';
import { dialectFromEnv, type Dialect } from '../../src/simulator/dialect.js';
import { publication } from '../../src/simulator/dialect-params.js';
import { toolNameOf } from '../../src/mcp/tools/dataset-tool.js';
import { connectV2 } from '../helpers/mcp.js';

const STRIPPED = ['pattern', 'minimum', 'maximum', 'format', 'default'];

function asCodexSees(property: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(property).filter(([key]) => !STRIPPED.includes(key)));
}

/**
 * Each parameter of a dataset's tool under the schema that bounds it: the upstream's, as the
 * dialect publishes it (its page size, whatever its name, is the tool's `limit`), where it
 * takes one; ours for the rest (MCP-side shaping, a filter applied here, the dealer tool's views).
 */
function offered(dataset: DatasetDefinition, dialect: Dialect): Record<string, z.ZodType> {
  const { published, params } = publication(dataset, dialect);
  const upstream: Record<string, z.ZodType> = {};
  if (!dataset.toolOutput)
    for (const param of params) {
      const schema = published.query[param.name];
      if (schema && param.role.kind === 'filter') upstream[param.role.ours] = schema;
      if (schema && param.role.kind === 'size') upstream['limit'] = schema;
    }
  return {
    ...dataset.query,
    ...upstream,
    ...dataset.shaping,
    ...(published.ticker ? { ticker: published.ticker } : {}),
  };
}

test('with the keywords Codex strips removed, every range, default and date format is still in the description', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const { tools } = await client.listTools();
    const dialect = dialectFromEnv();
    let checked = 0;
    for (const dataset of DATASETS) {
      const tool = tools.find((t) => t.name === toolNameOf(dataset));
      assert.ok(tool, toolNameOf(dataset));
      const properties = (tool.inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
      for (const [name, zod] of Object.entries(offered(dataset, dialect))) {
        const { schema } = paramJsonSchema(zod);
        const seen = asCodexSees(properties[name] ?? {});
        const words = typeof seen['description'] === 'string' ? seen['description'] : '';
        const where = `${tool.name}.${name}: ${JSON.stringify(seen)}`;
        const min = schema['minimum'];
        // A safe-integer maximum (zod's `.int()`) bounds nothing a caller would send: left unsaid.
        const max = typeof schema['maximum'] === 'number' && schema['maximum'] < Number.MAX_SAFE_INTEGER ? schema['maximum'] : undefined;
        if (typeof min === 'number' && typeof max === 'number') {
          assert.ok(words.includes(`${min}-${max}`) || words.includes(`${min} to ${max}`), `range in ${where}`);
          checked += 1;
        } else if (typeof min === 'number') {
          assert.ok(words.includes(`>= ${min}`) || words.includes(`${min}-`) || words.includes(`${min} to`), `minimum in ${where}`);
          checked += 1;
        }
        const fallback = schema['default'];
        if (typeof fallback === 'number' || typeof fallback === 'string') {
          assert.ok(words.includes(`default ${fallback}`), `default in ${where}`);
          checked += 1;
        }
        if (schema['format'] === 'date') {
          assert.match(words, /YYYY-MM-DD/, `date format in ${where}`);
          checked += 1;
        }
        if (typeof schema['pattern'] === 'string' || schema['enum'] !== undefined)
          assert.ok(words.length > 0 || seen['enum'] !== undefined, `a pattern or enum is explained in ${where}`);
      }
    }
    assert.ok(checked >= 30, `${checked} constraints checked`);
  } finally {
    await close();
  }
});
