/**
 * The row fields a document's 200 schema lists, wherever its rows sit: a bare array of
 * rows, `data` (the spec's), or the one list property of a wrapper whose other properties
 * are metadata (`results`, `items`, `records`…, beside counts and cursors), or the values of
 * an object keyed by ticker (`additionalProperties`). With them a
 * call whose `fields` names none of a dataset's fields is refused before its first request
 * costs a unit (src/mcp/arguments/documented-fields.ts).
 */
import type { PlainSchema } from './schema-forms.js';
import { FIELD_NAME_PATTERN as FIELD_NAME } from '../../catalog/params.js';

const MAX_FIELDS = 500;
/** Where rows are put by name, in the order tried when a wrapper holds several lists. */
const ROW_KEYS = ['data', 'results', 'items', 'records', 'rows', 'list', 'entries', 'values'];

export function rowFieldsOf(response: PlainSchema | undefined): string[] | undefined {
  const rows = rowSchemaOf(response, 0);
  const names = Object.keys(rows?.properties ?? {})
    .filter((name) => FIELD_NAME.test(name))
    .slice(0, MAX_FIELDS);
  return names.length > 0 ? names : undefined;
}

/** The schema of one row: an array's items, the one list inside a wrapper, or a one-row payload under `data`. */
function rowSchemaOf(schema: PlainSchema | undefined, depth: number): PlainSchema | undefined {
  if (!schema || depth > 3) return undefined;
  // A union of a list and an object reads as neither type, but keeps the list's items (schema-forms.ts).
  const isList = (s: PlainSchema): boolean => s.type === 'array' || s.items !== undefined;
  if (isList(schema)) return schema.items;
  const properties = schema.properties ?? {};
  const lists = Object.entries(properties).filter(([, value]) => isList(value));
  const named = ROW_KEYS.map((key) => lists.find(([name]) => name === key)).find((entry) => entry !== undefined);
  const only = lists.length === 1 ? lists[0] : undefined;
  const list = named ?? only;
  if (list) return list[1].items;
  // `{data: {...}}`: a wrapper around a wrapper (`data.rows`), or one row.
  const data = properties['data'];
  if (data?.type === 'object') return rowSchemaOf(data, depth + 1) ?? data;
  // Rows keyed by ticker: every value is a row (`{type: object, additionalProperties: Row}`).
  if (Object.keys(properties).length === 0 && schema.values?.properties) return schema.values;
  return undefined;
}
