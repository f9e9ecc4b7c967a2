/**
 * `/v1/openapi.json` as a dialect writes it. It starts from the catalog's own document of
 * the dialect's parameters (catalog/openapi.ts), so a named dialect publishes what it always
 * did, then writes each open point in the dialect's form: operation ids, enums by `$ref`
 * (inside `allOf` or not) and `const`, optional parameters nullable in 3.0's or 3.1's ways,
 * ticker lists as arrays with `style`/`explode`, parameters declared by `$ref` or on the path
 * item, responses described down to the rows (dialect-schemas.ts), `servers` with a base
 * path, and a 3.0 document where the dialect is one.
 */
import { buildOpenApiDocument, GENERAL_TICKER_PATTERN, type DatasetDefinition } from '../catalog/index.js';
import { isNamedDialect, type Dialect, type OperationIdForm } from './dialect.js';
import { pascal, publication, type Publication, type PublishedParam } from './dialect-params.js';
import { responseSchemas } from './dialect-schemas.js';
import { toOpenApi30 } from './openapi-30.js';

type Json = Record<string, unknown>;

function words(ours: string): string[] {
  return ours.split(/[._-]/).filter(Boolean);
}

/** An operation id in the dialect's form; undefined where the dialect gives none. */
export function operationIdOf(form: OperationIdForm, ours: string, path: string): string | undefined {
  const parts = words(ours);
  switch (form) {
    case 'dotted':
      return ours;
    case 'camel':
      return `get${pascal(ours)}`;
    case 'namespaced':
      return `marketdata.${parts.join('_')}`;
    case 'kebab':
      return parts.join('-');
    case 'snake-verb':
      return `get_${parts.join('_')}`;
    case 'tag-verb': {
      const [tag = 'api', ...rest] = ours.split('.');
      return `${pascal(tag)}_Get${pascal(rest.join('_'))}`;
    }
    case 'fastapi': {
      // FastAPI's generate_unique_id: the route function's name, the path, the method, every non-word character as `_`.
      const last =
        path
          .split('/')
          .filter((s) => s !== '' && !s.startsWith('{'))
          .at(-1) ?? 'root';
      return `get_${last}${path}_get`.replace(/\W/g, '_');
    }
    case 'pascal':
      return pascal(ours);
    case 'none':
      return undefined;
  }
}

interface Parameter extends Json {
  name: string;
  in: string;
  required: boolean;
  schema: Json;
}

interface Operation {
  operationId?: string;
  parameters: (Parameter | Json)[];
  responses: Record<string, Json>;
}

/** Components under construction: a name is reused only for the same definition. */
class Components {
  readonly schemas: Record<string, Json> = {};
  readonly parameters: Record<string, Json> = {};

  add(bucket: Record<string, Json>, name: string, value: Json): string {
    const text = JSON.stringify(value);
    for (let n = 1; ; n += 1) {
      const key = n === 1 ? name : `${name}${n}`;
      const known = bucket[key];
      if (known === undefined) {
        bucket[key] = value;
        return key;
      }
      if (JSON.stringify(known) === text) return key;
    }
  }
}

function listSchema(param: Parameter): Json {
  const min = param.required ? 2 : 1;
  return {
    type: 'array',
    items: { type: 'string', pattern: GENERAL_TICKER_PATTERN.source },
    minItems: min,
    maxItems: 10,
    ...(typeof param.schema['description'] === 'string' ? { description: param.schema['description'] } : {}),
  };
}

/** The null a dialect allows an optional parameter, in its form. */
function nullable(schema: Json, dialect: Dialect, title: string): Json {
  const isRef = '$ref' in schema || 'allOf' in schema;
  switch (dialect.traits.nullable) {
    case 'none':
      return schema;
    case 'nullable':
      return isRef
        ? { allOf: ['$ref' in schema ? schema : (schema['allOf'] as Json[])[0]], nullable: true }
        : { ...schema, nullable: true };
    case 'type-array': {
      if (isRef || typeof schema['type'] !== 'string') return { anyOf: [schema, { type: 'null' }] };
      const { enum: values, ...rest } = schema;
      return { ...rest, type: [schema['type'], 'null'], ...(Array.isArray(values) ? { enum: [...(values as unknown[]), null] } : {}) };
    }
    case 'any-of': {
      // Pydantic v2 with FastAPI: every Optional[...] parameter, its title and default beside.
      const { description, default: fallback, ...core } = schema;
      return {
        anyOf: [core, { type: 'null' }],
        title,
        ...(description === undefined ? {} : { description }),
        ...(fallback === undefined ? {} : { default: fallback }),
      };
    }
  }
}

function rewriteParameter(param: Parameter, info: PublishedParam | undefined, dialect: Dialect, components: Components): Parameter {
  let schema: Json = param.schema;
  if (info?.list !== undefined && info.list !== 'comma-string') {
    schema = listSchema(param);
    param['style'] = 'form';
    param['explode'] = info.list === 'array-explode';
  }
  const values = schema['enum'];
  const ours = info?.role.kind === 'filter' ? info.role.ours : param.name;
  if (Array.isArray(values) && values.length === 1 && dialect.traits.constants) {
    const single: unknown = values[0];
    schema = { ...schema, const: single };
    delete schema['enum'];
  } else if (Array.isArray(values) && values.length > 1 && dialect.traits.enums !== 'inline') {
    const { description, default: fallback, ...core } = schema;
    const name = components.add(components.schemas, pascal(ours), { ...core, title: pascal(ours) });
    const ref = { $ref: `#/components/schemas/${name}` };
    const beside = {
      ...(description === undefined ? {} : { description }),
      ...(fallback === undefined ? {} : { default: fallback }),
    };
    schema =
      dialect.traits.enums === 'all-of-ref' ? { allOf: [ref], ...beside } : dialect.traits.version === '3.1' ? { ...ref, ...beside } : ref;
  }
  if (!param.required) schema = nullable(schema, dialect, pascal(param.name).replace(/([a-z])([A-Z])/g, '$1 $2'));
  param.schema = schema;
  return param;
}

/** JSON:API's `page[size]`, `page[number]`... as one `page` parameter, `style: deepObject`, an object of those members. */
function asDeepObject(parameters: (Parameter | Json)[]): (Parameter | Json)[] {
  const member = (p: Parameter | Json): string | undefined => /^page\[([a-z]+)\]$/.exec(String(p['name']))?.[1];
  const members = parameters.filter((p) => p['in'] === 'query' && member(p) !== undefined);
  if (members.length === 0) return parameters;
  const properties: Json = Object.fromEntries(members.map((p): [string, unknown] => [member(p) ?? '', p['schema']]));
  const page = { name: 'page', in: 'query', required: false, style: 'deepObject', explode: true, schema: { type: 'object', properties } };
  return [...parameters.filter((p) => !members.includes(p)), page];
}

/** Parameters by `$ref`, on the path item, or (mixed) the path's on the item and the shared ones by `$ref`. */
function declare(paths: Record<string, Record<string, unknown>>, dialect: Dialect, components: Components): void {
  const mode = dialect.traits.declaration;
  if (mode === 'inline') return;
  const seen = new Map<string, number>();
  for (const item of Object.values(paths))
    for (const param of (item['get'] as Operation | undefined)?.parameters ?? []) {
      const text = JSON.stringify(param);
      seen.set(text, (seen.get(text) ?? 0) + 1);
    }
  for (const item of Object.values(paths)) {
    const operation = item['get'] as Operation | undefined;
    if (!operation || operation.parameters.length === 0) continue;
    const byRef = (param: Json): Json => ({
      $ref: `#/components/parameters/${components.add(components.parameters, pascal(String(param['name'])), param)}`,
    });
    if (mode === 'ref') operation.parameters = operation.parameters.map(byRef);
    else if (mode === 'path-level') {
      item['parameters'] = operation.parameters;
      operation.parameters = [];
    } else {
      item['parameters'] = operation.parameters.filter((p) => p['in'] === 'path');
      operation.parameters = operation.parameters
        .filter((p) => p['in'] !== 'path')
        .map((p) => ((seen.get(JSON.stringify(p)) ?? 0) > 1 ? byRef(p) : p));
    }
    if (operation.parameters.length === 0) delete (operation as Partial<Operation>).parameters;
  }
}

const documents = new WeakMap<Dialect, Map<string, { datasets: readonly DatasetDefinition[]; document: unknown }>>();

/** The document for `datasets` as served from `origin` (memoised while the datasets stay the same). */
export function dialectDocument(datasets: readonly DatasetDefinition[], dialect: Dialect, origin: string): unknown {
  let byOrigin = documents.get(dialect);
  if (!byOrigin) documents.set(dialect, (byOrigin = new Map<string, { datasets: readonly DatasetDefinition[]; document: unknown }>()));
  const known = byOrigin.get(origin);
  if (known && known.datasets.length === datasets.length && known.datasets.every((d, i) => d === datasets[i])) return known.document;
  const document = writeDocument(datasets, dialect, origin);
  byOrigin.set(origin, { datasets: [...datasets], document });
  return document;
}

function writeDocument(datasets: readonly DatasetDefinition[], dialect: Dialect, origin: string): unknown {
  const publications = datasets.map((d) => publication(d, dialect));
  const document = buildOpenApiDocument(publications.map((p) => p.published)) as unknown as Json & {
    paths: Record<string, Record<string, unknown>>;
    components: Record<string, Record<string, unknown>>;
  };
  const components = new Components();
  const form = dialect.traits.operationIds;
  const byPath = new Map<string, Publication>(publications.map((p) => [p.published.path, p]));
  for (const [path, item] of Object.entries(document.paths)) {
    const operation = item['get'] as Operation;
    const ours = operation.operationId ?? '';
    const pub = byPath.get(path);
    // The named dialects renamed their datasets' ids only; a composed one writes every id in its form.
    const id = pub || !isNamedDialect(dialect) ? operationIdOf(form, ours, path) : ours;
    if (id === undefined) delete operation.operationId;
    else operation.operationId = id;
    if (!pub) continue;
    operation.parameters = (operation.parameters as Parameter[]).map((param) =>
      rewriteParameter(
        param,
        pub.params.find((p) => p.name === param.name && param.in === 'query'),
        dialect,
        components,
      ),
    );
    if (pub.paging?.kind === 'json-api' && pub.paging.form === 'deep-object') operation.parameters = asDeepObject(operation.parameters);
    const described = responseSchemas(pub, dialect, components);
    if (described) {
      const ok = operation.responses['200'] ?? {};
      operation.responses['200'] = { ...ok, ...described };
    }
  }
  declare(document.paths, dialect, components);
  document.components = {
    ...document.components,
    schemas: { ...(document.components['schemas'] ?? {}), ...components.schemas },
    ...(Object.keys(components.parameters).length > 0 ? { parameters: components.parameters } : {}),
  };
  if (dialect.traits.servers !== 'absolute') {
    document['servers'] = [{ url: dialect.traits.servers === 'base-path' ? `${origin}/v1` : '/v1' }];
    document.paths = Object.fromEntries(Object.entries(document.paths).map(([path, item]) => [path.replace(/^\/v1/, ''), item]));
  }
  return dialect.traits.version === '3.0' ? toOpenApi30(document) : document;
}
