/**
 * The output schema a tool declares, in the JSON Schema every host reads. zod writes a
 * union of primitives as `type: ["string", "number"]` and "any value" as `{}`: legal, but
 * a client that maps tool schemas onto a one-`type` dialect (Gemini's OpenAPI subset) may
 * reject the tool or drop the constraint, and the MCP Inspector's --strict check flags
 * both.
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { apiError, type ApiError } from '../../api/errors.js';
import type { DatasetDefinition } from '../../catalog/index.js';
import { advertisedMetaSchema } from './results.js';

type Json = Record<string, unknown>;

/**
 * `type: [a, b]` becomes `anyOf: [{type: a}, {type: b}]`; an empty schema becomes `true`;
 * `additionalProperties: false` is dropped, so objects stay open to fields added later.
 */
export function portableJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portableJsonSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    // Open objects: a field the API adds later must not make every client refuse the result
    // (the v1 and v2 SDK clients validate structuredContent against this schema).
    if (key === 'additionalProperties' && value === false) continue;
    if (isSubschemaKey(key) && isEmptySchema(value)) out[key] = true;
    else if (key === 'properties' && typeof value === 'object' && value !== null)
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([name, sub]) => [name, isEmptySchema(sub) ? true : portableJsonSchema(sub)]),
      );
    else out[key] = portableJsonSchema(value);
  }
  const type = out['type'];
  if (Array.isArray(type)) {
    delete out['type'];
    out['anyOf'] = type.map((t: unknown) => ({ type: t }));
  }
  return out;
}

function isSubschemaKey(key: string): boolean {
  return key === 'additionalProperties' || key === 'items';
}

function isEmptySchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/**
 * Advertises `schema` as portable JSON Schema, converted once, on first use. It lets every
 * value through: the tool handler checks each result against the zod schema itself
 * (dataset-tool.ts, outputProblem) and answers a readable RESPONSE_INVALID, where the SDK's
 * refusal would be a bare protocol error; a second parse here would only repeat that one.
 */
export function portableOutputSchema(schema: z.ZodType): StandardSchemaWithJSON<unknown, unknown> {
  let json: Json | undefined;
  const advertised = (): Json => {
    if (!json) {
      // 2020-12 is MCP's default dialect: naming it costs every session tokens and says nothing.
      const converted: Json = { ...z.toJSONSchema(schema) };
      delete converted['$schema'];
      json = portableJsonSchema(converted) as Json;
    }
    return json;
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'market-data-mcp',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: advertised, output: advertised },
    },
  };
}

/** The output schema a tool declares, where the spec gives the response shape. */
export function outputSchemaOf(dataset: DatasetDefinition): OutputSchema | undefined {
  if (!dataset.response) return undefined;
  const known = outputSchemas.get(dataset);
  if (known) return known;
  const data =
    dataset.toolOutput ??
    (dataset.response instanceof z.ZodObject ? (dataset.response.shape as Record<string, z.ZodType>)['data'] : undefined);
  if (!data) return undefined;
  const zod = z.object({ data, meta: advertisedMetaSchema });
  const schema = { zod, advertised: portableOutputSchema(zod) };
  outputSchemas.set(dataset, schema);
  return schema;
}

export interface OutputSchema {
  zod: z.ZodType;
  advertised: StandardSchemaWithJSON<unknown, unknown>;
}

/** One per dataset: HTTP builds a server per request and must not convert again. */
const outputSchemas = new WeakMap<DatasetDefinition, OutputSchema>();

/** Where a result breaks its tool's output schema, in one line (path: message); undefined when it conforms. */
export function outputProblem(schema: OutputSchema, value: unknown): string | undefined {
  const checked = schema.zod.safeParse(value);
  if (checked.success) return undefined;
  const issue = deepestIssue(checked.error.issues);
  if (!issue) return 'unknown problem';
  return `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`.slice(0, 200);
}

/** For a union (the dealer data is snapshots or levels), the issue of the branch that got furthest. */
function deepestIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue | undefined {
  let best: z.core.$ZodIssue | undefined;
  for (const issue of issues) {
    const candidate =
      issue.code === 'invalid_union'
        ? (deepestIssue(issue.errors.flat().map((i) => ({ ...i, path: [...issue.path, ...i.path] }))) ?? issue)
        : issue;
    if (!best || candidate.path.length > best.path.length) best = candidate;
  }
  return best;
}

export function responseShapeError(problem: string): ApiError {
  return apiError('RESPONSE_INVALID', {
    message: `The API's answer does not have the documented shape (${problem}).`,
    hint: 'Nothing usable came back for these arguments; try another session or ticker, or call again later.',
    local: true,
  });
}
