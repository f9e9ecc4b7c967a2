/**
 * JSON:API resource objects (`{id, type, attributes: {...}, relationships, links, meta}`) read
 * as rows: the id and the attributes side by side, each relationship as the id (or ids) it
 * names. A JSON:API upstream keeps every field of a row one level down, under `attributes`,
 * where `fields`, the row filters and the derived views would not find `ex_date`.
 *
 * Only a list whose every item has the resource shape is read so (a `type` and an `id` as
 * text, `attributes` an object, no key but those JSON:API allows): a row of ours that merely
 * has a `type` field is left as it is.
 */

type Json = Record<string, unknown>;

/** The members JSON:API allows in a resource object (`lid` is 1.1's local id). */
const RESOURCE_KEYS = new Set(['id', 'lid', 'type', 'attributes', 'relationships', 'links', 'meta']);

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` is a JSON:API resource object. */
export function isJsonApiResource(value: unknown): value is Json {
  if (!isRecord(value) || typeof value['type'] !== 'string' || typeof value['id'] !== 'string') return false;
  if (!isRecord(value['attributes'])) return false;
  return Object.keys(value).every((key) => RESOURCE_KEYS.has(key));
}

/** A relationship's linkage as ids: one id, a list of them, or null (`{data: null}`); undefined when it gives none. */
function linkedIds(relationship: unknown): unknown {
  if (!isRecord(relationship) || !('data' in relationship)) return undefined;
  const linkage = relationship['data'];
  const idOf = (item: unknown): unknown => (isRecord(item) && typeof item['id'] === 'string' ? item['id'] : null);
  if (linkage === null) return null;
  return Array.isArray(linkage) ? linkage.map(idOf) : idOf(linkage);
}

/** One resource as a row: `id`, then its attributes, then its relationships as ids where no attribute has that name. */
export function resourceRow(resource: Json): Json {
  const attributes = resource['attributes'] as Json;
  const row: Json = { id: resource['id'], ...attributes };
  row['id'] = resource['id'];
  const relationships = resource['relationships'];
  if (isRecord(relationships))
    for (const [name, relationship] of Object.entries(relationships)) {
      const ids = linkedIds(relationship);
      if (ids !== undefined && !(name in row) && name !== '__proto__') row[name] = ids;
    }
  return row;
}

/** The rows of a list of JSON:API resources, or undefined when the list is not one (an empty list is not). */
export function jsonApiRows(rows: readonly unknown[]): Json[] | undefined {
  if (rows.length === 0 || !rows.every(isJsonApiResource)) return undefined;
  return rows.map(resourceRow);
}
