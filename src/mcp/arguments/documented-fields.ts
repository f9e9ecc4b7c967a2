/**
 * The row fields a dataset's response schema lists, where one does: our curated schema
 * (the spec shows one response shape) or the upstream's live openapi.json, whose 200
 * schema the importer reads for the rows' properties wherever they sit
 * (src/registry/openapi/row-fields.ts). With them, a call whose `fields` names
 * none of a dataset's fields is refused before its first request costs a unit. Most
 * datasets have neither (the spec shows no other payload, and the documents seen publish
 * `{type: object}`): then only an earlier answer tells, and the first call is charged.
 */
import * as z from 'zod';
import type { DatasetDefinition, QueryValues } from '../../catalog/index.js';
import { FIELD_NAME_PATTERN as FIELD_NAME } from '../../catalog/params.js';

const MAX_FIELDS = 500;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const curated = new WeakMap<DatasetDefinition, readonly string[] | null>();

/**
 * The row fields `dataset` is documented to have for `query`, or undefined when no schema
 * lists them. A `format` changes the rows' shape (summary rows are aggregates), so a
 * documented row shape speaks only for the default one.
 */
export function documentedFields(dataset: DatasetDefinition, query: QueryValues): readonly string[] | undefined {
  if (query['format'] !== undefined) return undefined;
  return curatedFields(dataset) ?? dataset.responseFields;
}

function curatedFields(dataset: DatasetDefinition): readonly string[] | undefined {
  if (!dataset.response) return undefined;
  let names = curated.get(dataset);
  if (names === undefined) {
    const json = z.toJSONSchema(dataset.response, { io: 'output', unrepresentable: 'any' });
    names = rowFieldsOf(json) ?? null;
    curated.set(dataset, names);
  }
  return names ?? undefined;
}

/** `properties.data` → the properties of its items (or of itself, for a one-row answer). */
function rowFieldsOf(schema: unknown): readonly string[] | undefined {
  const payload = isObject(schema) ? schema : undefined;
  const properties = payload?.['properties'];
  const data = isObject(properties) && isObject(properties['data']) ? properties['data'] : undefined;
  if (!data) return undefined;
  const row = data['type'] === 'array' ? data['items'] : data;
  const rowProperties = isObject(row) ? row['properties'] : undefined;
  if (!isObject(rowProperties)) return undefined;
  const names = Object.keys(rowProperties)
    .filter((name) => FIELD_NAME.test(name))
    .slice(0, MAX_FIELDS);
  return names.length > 0 ? names : undefined;
}
