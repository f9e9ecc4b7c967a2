/**
 * Codex strips pattern, minimum, maximum, format and default before its model sees a
 * schema: every range, default and date format must survive in the words of the property.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATASETS, paramJsonSchema } from '../../src/catalog/index.js';
import { toolNameOf } from '../../src/mcp/tools/dataset-tool.js';
import { connectV2 } from '../helpers/mcp.js';

const STRIPPED = ['pattern', 'minimum', 'maximum', 'format', 'default'];

function asCodexSees(property: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(property).filter(([key]) => !STRIPPED.includes(key)));
}

test('with the keywords Codex strips removed, every range, default and date format is still in the description', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const { tools } = await client.listTools();
    let checked = 0;
    for (const dataset of DATASETS) {
      const tool = tools.find((t) => t.name === toolNameOf(dataset));
      assert.ok(tool, toolNameOf(dataset));
      const properties = (tool.inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
      for (const [name, zod] of Object.entries({
        ...dataset.query,
        ...dataset.shaping,
        ...(dataset.ticker ? { ticker: dataset.ticker } : {}),
      })) {
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
