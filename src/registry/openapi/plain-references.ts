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
 * The parts read are copied from the document as received, cleaned as they are copied (as
 * document-source.ts cleans what the library resolves in), and nothing else of the item is
 * copied. What is read is what cleaning and the library's crawl give (document-source.ts
 * keeps both to the parts a reading reads, operations.ts ItemReading): the same values, in
 * the same key order, one shared object for each entry named; test/catalog/document-reading.
 * test.ts holds the two equal.
 */
import { itemReading, type ItemReading, type PartReading } from './operations.js';

/** A reference this resolver leaves to the library. */
export class NotPlain extends Error {}

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

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
    .map((token) => (token.includes('~') ? token.replace(/~1/g, '/').replace(/~0/g, '~') : token));

/** The library's limit on how deep its crawl goes, past which it gives up. */
const MAX_DEPTH = 500;

/** How the document is cleaned as it is read (document-source.ts). */
export interface Cleaning {
  /** An object's keys as received, and the names cleaning gives them, in their order. */
  names(value: Json): { keys: readonly string[]; names: readonly string[] };
  /** The key as received of the member cleaning names `name` (looked up in a big object once it is indexed). */
  keyOf(value: Json, name: string): string | undefined;
  text(value: string): string;
}

/** A plain data property, also for a key named `__proto__`. */
function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export class PlainReferences {
  /** Entries resolved, by their reference's text: each named entry is one object wherever it is named. */
  private readonly done = new Map<string, unknown>();
  /** References being resolved, outermost first: meeting one again (or one around or inside it) is a cycle. */
  private readonly open: string[] = [];

  /** `root`: the document as received, which references point into. */
  constructor(
    private readonly root: Json,
    private readonly cleaning: Cleaning,
  ) {}

  /**
   * The parts `reading` reads of a path item as received, cleaned, their references resolved
   * (the rest of the item left out); throws NotPlain.
   */
  item(item: unknown, reading: ItemReading): unknown {
    return this.parts(item, itemReading(reading), 0);
  }

  /** `value`, cleaned, with the parts `reading` names resolved and the parts it does not name left out. */
  private parts(value: unknown, reading: PartReading, depth: number): unknown {
    if (reading === 'whole') return this.resolved(value, depth);
    // Arrays and scalars where an item, a GET or its answers should be: none of their parts is read.
    if (reading === undefined || !isJson(value)) return this.copied(value);
    const { keys, names } = this.cleaning.names(value);
    // An item, a GET or its answers by reference: the library resolves those with its own exclusions.
    if (this.referenceIn(value, keys, names) !== undefined) throw new NotPlain();
    const copy: Json = {};
    for (const [index, key] of keys.entries()) {
      const how = reading(names[index] as string);
      if (how !== undefined) setOwn(copy, names[index] as string, this.parts(value[key], how, depth + 1));
    }
    return copy;
  }

  /** `value` cleaned, with every reference in it resolved. */
  private resolved(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.cleaning.text(value);
    if (typeof value !== 'object' || value === null) return value;
    if (depth > MAX_DEPTH) throw new NotPlain();
    if (Array.isArray(value)) return value.map((item) => this.resolved(item, depth + 1));
    const record = value as Json;
    const { keys, names } = this.cleaning.names(record);
    const ref = this.referenceIn(record, keys, names);
    if (ref !== undefined) {
      // Words beside a reference are merged by the library's rules (preservedProperties and its cache).
      if (keys.length !== 1) throw new NotPlain();
      return this.target(ref, depth);
    }
    const copy: Json = {};
    for (const [index, key] of keys.entries()) setOwn(copy, names[index] as string, this.resolved(record[key], depth + 1));
    return copy;
  }

  /** `value` cleaned, its references left as they are. */
  private copied(value: unknown): unknown {
    if (typeof value === 'string') return this.cleaning.text(value);
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map((item) => this.copied(item));
    const { keys, names } = this.cleaning.names(value as Json);
    const copy: Json = {};
    for (const [index, key] of keys.entries()) setOwn(copy, names[index] as string, this.copied((value as Json)[key]));
    return copy;
  }

  /** The reference an object is once cleaned (its `$ref`, to `#` or `#/…`), if it is one. */
  private referenceIn(record: Json, keys: readonly string[], names: readonly string[]): string | undefined {
    const at = names.indexOf('$ref');
    const raw = at < 0 ? undefined : record[keys[at] as string];
    if (typeof raw !== 'string') return undefined;
    const ref = this.cleaning.text(raw);
    return ref === '#' || ref.startsWith('#/') ? ref : undefined;
  }

  private isReference(value: Json): boolean {
    const key = this.cleaning.keyOf(value, '$ref');
    if (key === undefined || typeof value[key] !== 'string') return false;
    const ref = this.cleaning.text(value[key]);
    return ref === '#' || ref.startsWith('#/');
  }

  /** What a reference names, cleaned and resolved. */
  private target(ref: string, depth: number): unknown {
    if (!PLAIN_POINTER.test(ref) || ref === '#/paths' || ref.startsWith('#/paths/')) throw new NotPlain();
    if (this.done.has(ref)) return this.done.get(ref);
    if (this.open.some((outer) => outer === ref || outer.startsWith(`${ref}/`) || ref.startsWith(`${outer}/`))) throw new NotPlain();
    let value: unknown = this.root;
    for (const token of plainTokens(ref)) {
      // A pointer through a reference, or past the end of the document (or into a key only cleaning names): the library's walk.
      if (Array.isArray(value)) {
        if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= value.length) throw new NotPlain();
        value = value[Number(token)];
        continue;
      }
      const key = isJson(value) && !this.isReference(value) ? this.cleaning.keyOf(value, token) : undefined;
      if (key === undefined) throw new NotPlain();
      value = (value as Json)[key];
    }
    // A pointer to null, or to another reference (a chain).
    if (value === null || value === undefined || (isJson(value) && this.isReference(value))) throw new NotPlain();
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
