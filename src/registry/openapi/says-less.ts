/**
 * Whether a document's parameter says less than the catalog's own check for it: the same
 * type, and no pattern, enum, bound, default or format of its own. A document that writes a
 * known dataset's ticker as `{type: string}` has not said that `aapl` or `AAPL?x=1#` is a
 * ticker; it has said nothing, and the catalog's reviewed check stands, so such a value is
 * refused before it is sent (and charged). Only a document that says something different
 * (its own pattern, enum or bounds) replaces the catalog's check (import.ts).
 */
import type { CleanSchema } from './parameter-schema.js';

/** What a document may say of a parameter beyond its type. */
const STATEMENTS = ['pattern', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'default', 'items', 'minItems', 'maxItems'] as const;

/** `clean` is the document's parameter (cleanSchema), `ours` the catalog's schema as JSON Schema. */
export function saysLess(clean: CleanSchema, ours: Record<string, unknown>): boolean {
  if (clean['type'] !== ours['type']) return false;
  if (STATEMENTS.some((key) => clean[key] !== undefined)) return false;
  return clean['format'] === undefined || clean['format'] === ours['format'];
}
