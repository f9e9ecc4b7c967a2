/**
 * A parameter's JSON Schema (paramJsonSchema), converted once per zod schema, for readers
 * that only read it: the import's comparisons with the catalog and the registry's
 * fingerprints. Converting the catalog's parameters was about a sixth of a first start
 * against a 100-dataset upstream (start-up time, BENCHMARKS.md); the build converts them
 * (dist/prebuilt.json, src/prebuilt.ts) and a start primes them here. The objects are
 * shared: never change one.
 */
import type * as z from 'zod';
import { paramJsonSchema } from './openapi.js';
import type { DatasetDefinition } from './types.js';

export type ParamJson = ReturnType<typeof paramJsonSchema>;

/** A dataset's parameters as JSON Schemas: its path ticker, its query and its shaping, by name. */
export interface DatasetParamJson {
  ticker?: ParamJson;
  query: Record<string, ParamJson>;
  shaping: Record<string, ParamJson>;
}

const converted = new WeakMap<z.ZodType, ParamJson>();

export function paramJsonSchemaOnce(schema: z.ZodType): ParamJson {
  let json = converted.get(schema);
  if (json === undefined) {
    json = paramJsonSchema(schema);
    converted.set(schema, json);
  }
  return json;
}

const convertAll = (shape: Readonly<Record<string, z.ZodType>> | undefined): Record<string, ParamJson> =>
  Object.fromEntries(Object.entries(shape ?? {}).map(([name, schema]) => [name, paramJsonSchema(schema)]));

/** What the build writes for a dataset. */
export function datasetParamJson(dataset: DatasetDefinition): DatasetParamJson {
  return {
    ...(dataset.ticker ? { ticker: paramJsonSchema(dataset.ticker) } : {}),
    query: convertAll(dataset.query),
    shaping: convertAll(dataset.shaping),
  };
}

/** Seeds the conversion of one schema with the JSON Schema it is known to have (an imported parameter's plan). */
export function primeParamJson(schema: z.ZodType, json: ParamJson): void {
  converted.set(schema, json);
}

/** Seeds the conversions of a dataset's parameters with the build's; a name the build did not see is converted when read. */
export function primeDatasetParamJson(dataset: DatasetDefinition, json: DatasetParamJson): void {
  if (dataset.ticker && json.ticker) converted.set(dataset.ticker, json.ticker);
  for (const [name, schema] of Object.entries(dataset.query)) {
    const known = json.query[name];
    if (known) converted.set(schema, known);
  }
  for (const [name, schema] of Object.entries(dataset.shaping ?? {})) {
    const known = json.shaping[name];
    if (known) converted.set(schema, known);
  }
}
