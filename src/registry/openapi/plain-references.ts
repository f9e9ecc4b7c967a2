/**
 * References as generators write them, resolved directly: `{"$ref": "#/components/schemas/Rows"}`
 * naming, by plain pointer characters, an entry that is there and holds no reference back to
 * itself. @apidevtools/json-schema-ref-parser (dereference.ts) spends about 0.1 ms on each
 * reference it meets (URL resolution, pointer objects, its caches), which for a registry of
 * 500 datasets written with `$ref` was most of a first start's import (BENCHMARKS.md); a
 * lookup by pointer costs microseconds. Anything else the library resolves, by its own rules:
 * a reference with words beside it (OpenAPI 3.1's `description`), escaped or spaced pointers,
 * a chain, a pointer through a reference or to nothing, a reference into `paths` or to a whole
 * document, and cycles. Each of those throws NotPlain, and the path item goes to the library.
 *
 * What is resolved is what the library's crawl gives (document-source.ts keeps its crawl to
 * the parts a reader reads): the same values, in the same key order, one shared object for
 * each entry named; test/catalog/document-reading.test.ts holds the two equal.
 */
import { READ_PARTS } from './operations.js';

/** A reference this resolver leaves to the library. */
export class NotPlain extends Error {}

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A reference the library resolves (its isAllowed$Ref, with external references off): `#` or `#/…`. */
export function isLocalReference(value: unknown): value is { $ref: string } {
  if (typeof value !== 'object' || value === null || !('$ref' in value)) return false;
  const ref = value.$ref;
  return typeof ref === 'string' && (ref === '#' || ref.startsWith('#/'));
}

/**
 * A pointer whose text URL parsing and percent decoding leave as it is, below the document's
 * root: what the library reads it as is then its `/`-split tokens, `~1` and `~0` unescaped.
 */
export const PLAIN_POINTER = /^#\/[A-Za-z0-9_.~/-]*$/;

/** The tokens of a plain pointer. */
export const plainTokens = (ref: string): string[] =>
  ref
    .slice(2)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));

/** The library's limit on how deep its crawl goes, past which it gives up. */
const MAX_DEPTH = 500;

/** Where a path item's parts are read (operations.ts READ_PARTS): wholly, as a GET, as its answers, or not at all. */
type Reading = 'whole' | 'get' | 'responses' | undefined;

const ITEM_PARTS = (key: string): Reading =>
  key === 'get' ? 'get' : (READ_PARTS.item as readonly string[]).includes(key) ? 'whole' : undefined;
const GET_PARTS = (key: string): Reading =>
  key === 'responses' ? 'responses' : (READ_PARTS.get as readonly string[]).includes(key) ? 'whole' : undefined;
const ANSWER_PARTS = (key: string): Reading => ((READ_PARTS.responses as readonly string[]).includes(key) ? 'whole' : undefined);

/** A plain data property, also for a key named `__proto__`. */
function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export class PlainReferences {
  /** Entries resolved, by their reference's text: each named entry is one object wherever it is named. */
  private readonly done = new Map<string, unknown>();
  /** References being resolved, outermost first: meeting one again (or one around or inside it) is a cycle. */
  private readonly open: string[] = [];

  /** `root`: the document the references point into (document-source.ts's cleaned copies). */
  constructor(private readonly root: Json) {}

  /** A path item with the references of its read parts resolved; throws NotPlain, leaving nothing changed. */
  item(item: unknown): unknown {
    if (isLocalReference(item)) throw new NotPlain();
    return this.parts(item, ITEM_PARTS, 0);
  }

  /** A copy of an object whose parts `reading` names are resolved; the rest, never read, is left as it is. */
  private parts(value: unknown, reading: (key: string) => Reading, depth: number): unknown {
    // Arrays and scalars where an item, a GET or its answers should be: none of their parts is read.
    if (!isJson(value)) return value;
    const copy: Json = {};
    for (const key of Object.keys(value)) {
      const part = value[key];
      const how = reading(key);
      let read = part;
      if (how === 'whole') read = this.resolved(part, depth + 1);
      else if (how !== undefined) {
        // A GET or its answers by reference: the library resolves those with its own exclusions.
        if (isLocalReference(part)) throw new NotPlain();
        read = this.parts(part, how === 'get' ? GET_PARTS : ANSWER_PARTS, depth + 1);
      }
      setOwn(copy, key, read);
    }
    return copy;
  }

  /** `value` with every reference in it resolved. */
  private resolved(value: unknown, depth: number): unknown {
    if (typeof value !== 'object' || value === null) return value;
    if (depth > MAX_DEPTH) throw new NotPlain();
    if (isLocalReference(value)) return this.target(value, depth);
    if (Array.isArray(value)) return value.map((item) => this.resolved(item, depth + 1));
    const copy: Json = {};
    for (const key of Object.keys(value)) setOwn(copy, key, this.resolved((value as Json)[key], depth + 1));
    return copy;
  }

  /** What a reference names, resolved. */
  private target(reference: { $ref: string }, depth: number): unknown {
    const ref = reference.$ref;
    // Words beside a reference are merged by the library's rules (preservedProperties and its cache).
    if (Object.keys(reference).length !== 1 || !PLAIN_POINTER.test(ref) || ref === '#/paths' || ref.startsWith('#/paths/'))
      throw new NotPlain();
    if (this.done.has(ref)) return this.done.get(ref);
    if (this.open.some((outer) => outer === ref || outer.startsWith(`${ref}/`) || ref.startsWith(`${outer}/`))) throw new NotPlain();
    let value: unknown = this.root;
    for (const token of plainTokens(ref)) {
      // A pointer through a reference, or past the end of the document: the library's walk.
      if (typeof value !== 'object' || value === null || isLocalReference(value) || !Object.hasOwn(value, token)) throw new NotPlain();
      if (Array.isArray(value) && !/^(0|[1-9][0-9]*)$/.test(token)) throw new NotPlain();
      value = (value as Json)[token];
    }
    // A pointer to null, or to another reference (a chain).
    if (value === null || value === undefined || isLocalReference(value)) throw new NotPlain();
    this.open.push(ref);
    try {
      const resolved = this.resolved(value, depth + 1);
      this.done.set(ref, resolved);
      return resolved;
    } finally {
      this.open.pop();
    }
  }
}
