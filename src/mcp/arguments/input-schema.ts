/**
 * What a dataset tool advertises and how its arguments are checked. The advertised
 * JSON Schema is a flat object with the spec's exact patterns and enums; the SDK's own
 * validation is bypassed on purpose so that a bad ticker comes back as the API's own
 * code (TICKER_INVALID, with "use SPY") instead of a generic schema message.
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { isRequiredParam, type DatasetDefinition } from '../../catalog/index.js';
import { paramJsonSchemaOnce } from '../../catalog/param-json-memo.js';
import { upstreamRoles } from '../../catalog/param-roles.js';
import { serverDrivenParams } from './cursor.js';
import { portableProperty } from './portable-constraints.js';

export type ToolArguments = Record<string, unknown>;
type JsonSchemaObject = Record<string, unknown>;

/** Projection is offered where rows are flat; the dealer history keeps its output schema whole. */
export function supportsFields(dataset: DatasetDefinition): boolean {
  return dataset.response === undefined;
}

export const FIELDS_PARAM = 'fields';

/** Converted once per dataset: HTTP builds a server per request and must not redo it. */
const inputSchemas = new WeakMap<DatasetDefinition, JsonSchemaObject>();

export function toolInputJsonSchema(dataset: DatasetDefinition): JsonSchemaObject {
  const known = inputSchemas.get(dataset);
  if (known) return known;
  const schema = buildInputJsonSchema(dataset);
  inputSchemas.set(dataset, schema);
  return schema;
}

/** Seeds schemas computed at build time (src/prebuilt.ts), so a start converts nothing. */
export function primeToolInputJsonSchema(dataset: DatasetDefinition, schema: JsonSchemaObject): void {
  inputSchemas.set(dataset, schema);
}

function buildInputJsonSchema(dataset: DatasetDefinition): JsonSchemaObject {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  if (dataset.ticker) {
    const { schema, description } = paramJsonSchemaOnce(dataset.ticker);
    properties['ticker'] = portableProperty({ ...schema, ...(description ? { description } : {}) });
    required.push('ticker');
  }
  // MCP-side parameters (shaping) are advertised in place of an upstream one of the same name.
  // A tool that answers with its own shape (the dealer history) takes only its shaping: the
  // upstream's paging parameters are ours to drive, under whatever names the upstream gives them.
  // So are the upstream's page number and offset, which this server drives behind its cursor (cursor.ts).
  const driven = serverDrivenParams(dataset, upstreamRoles(dataset));
  const upstream = dataset.toolOutput ? {} : Object.fromEntries(Object.entries(dataset.query).filter(([name]) => !driven.has(name)));
  for (const [name, zodSchema] of Object.entries({ ...upstream, ...dataset.shaping })) {
    // Once per zod schema: the parameters an upstream repeats across its datasets share one.
    const { schema, description } = paramJsonSchemaOnce(zodSchema);
    properties[name] = portableProperty({ ...schema, ...(description ? { description } : {}) });
    if (isRequiredParam(zodSchema)) required.push(name);
  }
  if (supportsFields(dataset)) {
    // Explained once in the server instructions: it appears in most tools. A description on
    // each ("Columns to keep") was measured at 147 o200k tokens more per tools/list.
    properties[FIELDS_PARAM] = { type: 'array', items: { type: 'string' } };
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/**
 * A Standard Schema that advertises `json` and lets any object through to the handler,
 * which validates against the catalog and answers with the API's error codes.
 */
export function advertisedSchema(json: JsonSchemaObject): StandardSchemaWithJSON<ToolArguments, ToolArguments> {
  return {
    '~standard': {
      version: 1,
      vendor: 'market-data-mcp',
      validate: (value: unknown) =>
        typeof value === 'object' && value !== null && !Array.isArray(value)
          ? { value: value as ToolArguments }
          : { issues: [{ message: 'arguments must be a JSON object' }] },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}
