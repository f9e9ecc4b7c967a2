/**
 * An OpenAPI 3.1 document written down as 3.0 (Swagger-era generators): `nullable: true`
 * instead of a type array or an `anyOf` with null, a one-value `enum` instead of `const`,
 * `minimum` with a boolean `exclusiveMinimum`, no `examples`.
 */
type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isNull = (schema: unknown): boolean => isObject(schema) && schema['type'] === 'null' && Object.keys(schema).length === 1;

function schema30(input: Json): Json {
  let schema: Json = { ...input };
  const type = schema['type'];
  if (Array.isArray(type) && type.includes('null')) {
    const rest: unknown[] = (type as unknown[]).filter((t) => t !== 'null');
    schema =
      rest.length === 1
        ? { ...schema, type: rest[0], nullable: true }
        : { ...schema, type: undefined, anyOf: rest.map((t) => ({ type: t })), nullable: true };
    if (schema['type'] === undefined) delete schema['type'];
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options: unknown = schema[key];
    if (!Array.isArray(options) || !options.some(isNull)) continue;
    const rest: unknown[] = (options as unknown[]).filter((o) => !isNull(o));
    delete schema[key];
    const only = rest[0];
    if (rest.length === 1 && isObject(only)) {
      // A lone $ref takes no siblings in 3.0: it goes inside an allOf, as 3.0 generators write it.
      schema = '$ref' in only ? { ...schema, allOf: [only], nullable: true } : { ...schema, ...only, nullable: true };
    } else schema = { ...schema, [key]: rest, nullable: true };
  }
  const values: unknown = schema['enum'];
  if (Array.isArray(values) && values.includes(null))
    schema = { ...schema, enum: (values as unknown[]).filter((v) => v !== null), nullable: true };
  if ('const' in schema && !isObject(schema['const'])) {
    const { const: only, ...rest } = schema;
    schema = { ...rest, enum: [only] };
  }
  if (typeof schema['exclusiveMinimum'] === 'number') schema = { ...schema, minimum: schema['exclusiveMinimum'], exclusiveMinimum: true };
  if (typeof schema['exclusiveMaximum'] === 'number') schema = { ...schema, maximum: schema['exclusiveMaximum'], exclusiveMaximum: true };
  delete schema['examples'];
  return schema;
}

/** Every schema of the document (found under `schema`, `schemas`, `properties`, `items` and the combinators), in 3.0's form. */
function walk(value: unknown, inSchema: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => walk(v, inSchema));
  if (!isObject(value)) return value;
  const converted = inSchema ? schema30(value) : value;
  const out: Json = {};
  for (const [key, child] of Object.entries(converted)) {
    if (inSchema && (key === 'properties' || key === 'patternProperties') && isObject(child))
      out[key] = Object.fromEntries(Object.entries(child).map(([name, s]) => [name, walk(s, true)]));
    else if (!inSchema && key === 'schemas' && isObject(child))
      out[key] = Object.fromEntries(Object.entries(child).map(([name, s]) => [name, walk(s, true)]));
    else {
      const schemaChild =
        key === 'schema' || (inSchema && ['items', 'additionalProperties', 'not', 'anyOf', 'oneOf', 'allOf'].includes(key));
      out[key] = walk(child, schemaChild);
    }
  }
  return out;
}

export function toOpenApi30(document: Json): Json {
  const converted = walk(document, false) as Json;
  return { ...converted, openapi: '3.0.3' };
}
