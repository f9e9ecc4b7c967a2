/**
 * The row fields a dataset's response schema lists, where one does: our curated schema
 * (the spec shows one response shape) or the upstream's live openapi.json, when its 200
 * response names the properties of `data`'s rows. With them, a call whose `fields` names
 * none of a dataset's fields is refused before its first request costs a unit. Most
 * datasets have neither (the spec shows no other payload, and the documents seen publish
 * `{type: object}`): then only an earlier answer tells, and the first call is charged.
 */
import * as z from 'zod';
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';

/** Names as `fields` accepts them; anything else in a document is not a field a caller can name. */
const FIELD_NAME = /^[a-z0-9_]{1,60}$/;
const MAX_FIELDS = 500;
/** `$ref` hops followed: a document's cycles and chains end here. */
const MAX_REFS = 8;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const curated = new WeakMap<DatasetDefinition, readonly string[] | null>();

/**
 * The row fields `dataset` is documented to have for `query`, or undefined when no schema
 * lists them. A `format` changes the rows' shape (summary rows are aggregates), so a
 * documented row shape speaks only for the default one.
 */
export function documentedFields(dataset: DatasetDefinition, query: QueryValues, document: unknown): readonly string[] | undefined {
  if (query['format'] !== undefined) return undefined;
  return curatedFields(dataset) ?? rowFieldsOf(responseSchemaOf(document, dataset.path), document);
}

function curatedFields(dataset: DatasetDefinition): readonly string[] | undefined {
  if (!dataset.response) return undefined;
  let names = curated.get(dataset);
  if (names === undefined) {
    const json = z.toJSONSchema(dataset.response, { io: 'output', unrepresentable: 'any' });
    names = rowFieldsOf(json, json) ?? null;
    curated.set(dataset, names);
  }
  return names ?? undefined;
}

/** The JSON schema of the operation's 200 answer in an OpenAPI document, if it has one. */
function responseSchemaOf(document: unknown, path: string): unknown {
  if (!isObject(document) || !isObject(document['paths'])) return undefined;
  const item = document['paths'][path];
  const get = isObject(item) ? item['get'] : undefined;
  const responses = isObject(get) ? get['responses'] : undefined;
  const ok = isObject(responses) ? responses['200'] : undefined;
  const content = isObject(ok) ? ok['content'] : undefined;
  const json = isObject(content) ? content['application/json'] : undefined;
  return isObject(json) ? json['schema'] : undefined;
}

/** `properties.data` → the properties of its items (or of itself, for a one-row answer). */
function rowFieldsOf(schema: unknown, root: unknown): readonly string[] | undefined {
  const payload = resolve(schema, root);
  const properties = payload?.['properties'];
  const data = resolve(isObject(properties) ? properties['data'] : undefined, root);
  if (!data) return undefined;
  const row = data['type'] === 'array' ? resolve(data['items'], root) : data;
  const rowProperties = row?.['properties'];
  if (!isObject(rowProperties)) return undefined;
  const names = Object.keys(rowProperties)
    .filter((name) => FIELD_NAME.test(name))
    .slice(0, MAX_FIELDS);
  return names.length > 0 ? names : undefined;
}

/** Follows local `$ref`s (`#/components/schemas/Row`), a bounded number of hops. */
function resolve(schema: unknown, root: unknown): Json | undefined {
  let current = schema;
  for (let hop = 0; hop <= MAX_REFS; hop += 1) {
    if (!isObject(current)) return undefined;
    const ref = current['$ref'];
    if (typeof ref !== 'string') return current;
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, part) => (isObject(node) && Object.hasOwn(node, part) ? node[part] : undefined), root);
  }
  return undefined;
}
