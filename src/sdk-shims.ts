/**
 * Stands in for `@modelcontextprotocol/server/_shims` in the bundle (scripts/build-bundle.mjs).
 * The SDK's Node shim exports Ajv as its default JSON Schema validator, and importing it
 * evaluates Ajv, its 2019 and 2020 dialects and ajv-formats (about 290 KB) at every start,
 * before the first answer (start-up time, BENCHMARKS.md). The SDK validates a JSON Schema
 * only for the answer to a form elicitation, which this server never sends; zod, already
 * loaded for every tool's arguments, reads such a schema (flat objects of strings, numbers,
 * booleans and enums) as well.
 */
import process from 'node:process';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/server';
import * as z from 'zod';

export class ZodJsonSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    // Both are JSON Schema 2020-12; their typings differ only on `$vocabulary`'s values.
    const parser = z.fromJSONSchema(schema as unknown as Parameters<typeof z.fromJSONSchema>[0]);
    return (input: unknown) => {
      const parsed = parser.safeParse(input);
      return parsed.success
        ? { valid: true, data: parsed.data as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: z.prettifyError(parsed.error) };
    };
  }
}

export { ZodJsonSchemaValidator as DefaultJsonSchemaValidator, process };
