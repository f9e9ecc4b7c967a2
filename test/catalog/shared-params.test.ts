/**
 * Parameters an upstream repeats across its new datasets are converted once per document
 * (src/registry/openapi/import.ts, convertOnce): each tool must still show and check its own,
 * wherever two operations state a parameter of the same name differently.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { datasetsFromOpenApi } from '../../src/registry/openapi/import.js';
import { toolInputJsonSchema } from '../../src/mcp/arguments/input-schema.js';
import { validateToolArguments } from '../../src/mcp/arguments/screen.js';

type Param = Record<string, unknown>;
const limit = (maximum: number, extra: Param = {}): Param => ({
  name: 'limit',
  in: 'query',
  schema: { type: 'integer', minimum: 1, maximum },
  ...extra,
});
const side = (values: string[]): Param => ({ name: 'side', in: 'query', schema: { type: 'string', enum: values } });

/** Operations on new paths, each with the given parameters. */
function documentOf(operations: Record<string, Param[]>): unknown {
  const paths: Record<string, unknown> = {};
  for (const [name, parameters] of Object.entries(operations))
    paths[`/v1/flow/${name}`] = { get: { operationId: `flow.${name}`, summary: name, parameters } };
  return { openapi: '3.1.0', paths };
}

const DOCUMENT = documentOf({
  alpha: [limit(100), side(['buy', 'sell'])],
  beta: [limit(500), side(['buy', 'sell', 'both'])],
  gamma: [limit(100), side(['buy', 'sell'])],
  delta: [limit(100, { required: true, description: 'Rows wanted.' })],
});

function imported(id: string): Parameters<typeof toolInputJsonSchema>[0] {
  const dataset = datasetsFromOpenApi(DOCUMENT, { fresh: false }).datasets.find((d) => d.operationId === `flow.${id}`);
  assert.ok(dataset, `flow.${id} is imported`);
  return dataset;
}

const property = (id: string, name: string): Record<string, unknown> =>
  (toolInputJsonSchema(imported(id))['properties'] as Record<string, Record<string, unknown>>)[name] ?? {};

test('a parameter stated differently by two operations is shown by each tool as its own operation states it', () => {
  assert.match(String(property('alpha', 'limit')['description']), /1-100\b/);
  assert.match(String(property('beta', 'limit')['description']), /1-500\b/);
  assert.deepEqual(property('alpha', 'side')['enum'], ['buy', 'sell']);
  assert.deepEqual(property('beta', 'side')['enum'], ['buy', 'sell', 'both']);
  assert.match(String(property('delta', 'limit')['description']), /Rows wanted/);
  assert.deepEqual(toolInputJsonSchema(imported('delta'))['required'], ['limit']);
  assert.equal(toolInputJsonSchema(imported('alpha'))['required'], undefined);
  // Stated alike, shown alike.
  assert.deepEqual(property('gamma', 'limit'), property('alpha', 'limit'));
});

test('a parameter stated differently by two operations is checked by each tool against its own bound', () => {
  assert.equal(validateToolArguments(imported('beta'), { limit: 400 }).ok, true);
  assert.equal(validateToolArguments(imported('alpha'), { limit: 400 }).ok, false);
  assert.equal(validateToolArguments(imported('alpha'), { side: 'both' }).ok, false);
  assert.equal(validateToolArguments(imported('beta'), { side: 'both' }).ok, true);
  assert.equal(validateToolArguments(imported('delta'), {}).ok, false);
  assert.equal(validateToolArguments(imported('alpha'), {}).ok, true);
});
