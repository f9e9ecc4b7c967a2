/**
 * The upstream's document as the importer reads it: a path item at a time, when the import
 * first asks for it, its text cleaned as every upstream text is (sanitizeDeep) and its
 * internal references resolved by @apidevtools/json-schema-ref-parser (dereference.ts says
 * why that library and how it is told to resolve). A first start against a registry of 500
 * datasets imports at most 100 of them (import.ts): cleaning and resolving the whole
 * document before reading any of it cost more than the rest of the start together
 * (BENCHMARKS.md), for operations nobody would call.
 *
 * Only what a path item refers to joins it: references are resolved in a document made of
 * the items asked for and the entries their references name (a component, a definition,
 * another path item), each cleaned as it is placed. Those written as generators write them
 * are resolved directly (plain-references.ts); the library resolves an item holding any
 * other, its crawl kept to the items asked for. What is read is what a resolution of the whole document would give, with
 * one difference left: where two circular schemas are reached in another order, the library
 * cuts the cycle at another place. A document with `$id` (whose scopes change what a
 * reference means) is resolved whole, as before.
 */
import $RefParser, { dereferenceInternal, jsonSchemaParserNormalizeArgs } from '@apidevtools/json-schema-ref-parser';
import { cleanKeyNames, sanitizeDeep, sanitizeText } from '../../sanitize.js';
import { redactSecrets } from '../../secrets.js';
import { dereferenceDocument, OPTIONS } from './dereference.js';
import { itemReading, readParts, readsAt, type ItemReading, type PartReading } from './operations.js';
import { NotPlain, PLAIN_POINTER, plainTokens, PlainReferences } from './plain-references.js';

/** The longest upstream text kept: what the client's answer reading keeps of any text value. */
export const DOCUMENT_TEXT_CHARS = 2000;

/** What a path item is, told without resolving it (a `$ref` item is `unknown` until it is). */
export type ItemShape =
  { kind: 'get'; operationId: unknown } | { kind: 'none' } | { kind: 'not-object' } | { kind: 'get-not-object' } | { kind: 'unknown' };

export interface DocumentSource {
  /** `servers` and `basePath` as read (cleaned, resolved): where the keys sit. */
  readonly head: Readonly<Record<string, unknown>>;
  /** The document's `paths` keys, cleaned, in its order. */
  readonly keys: readonly string[];
  shape(key: string): ItemShape;
  /**
   * The path item, the parts that list its operation cleaned and resolved (now, if it was not
   * asked for before); its other parts, which are never read from it, as received or left out.
   */
  item(key: string): unknown;
  /**
   * The GET's `responses` of the path item, cleaned, its success answers resolved: read when an
   * operation's row fields are first asked for (operations.ts ItemReading).
   */
  answers(key: string): unknown;
  /** Resolves these path items together, in one crawl, before they are asked for one by one. */
  prefetch(keys: readonly string[]): void;
  /** The same document with only `key` among its paths: one operation imported alone (import-memo.ts). */
  only(key: string): DocumentSource;
}

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The GET's `responses` of a path item as read, if it has them. */
function responsesOf(item: unknown): unknown {
  return isJson(item) && isJson(item['get']) ? item['get']['responses'] : undefined;
}

function shapeOf(item: unknown, get: unknown, hasGet: boolean): ItemShape {
  if (!isJson(item)) return { kind: 'not-object' };
  if (!hasGet) return { kind: 'none' };
  if (!isJson(get)) return { kind: 'get-not-object' };
  return { kind: 'get', operationId: get['operationId'] };
}

/** A document already in the form the importer reads (cleaned and resolved, or needing neither). */
export function plainSource(document: unknown): DocumentSource {
  const head = isJson(document) ? document : {};
  const paths = isJson(head['paths']) ? head['paths'] : {};
  return {
    head,
    keys: Object.keys(paths),
    shape: (key) => {
      const item = paths[key];
      return shapeOf(item, isJson(item) ? item['get'] : undefined, isJson(item) && item['get'] !== undefined);
    },
    item: (key) => paths[key],
    answers: (key) => responsesOf(paths[key]),
    prefetch: () => undefined,
    only: (key) => plainSource({ ...head, paths: { [key]: paths[key] } }),
  };
}

/**
 * The document the registry received, ready to be read an item at a time. Nothing is cleaned
 * or resolved here but `servers` and `basePath`; a document with `$id` is resolved whole.
 */
export async function openDocument(raw: unknown, text = JSON.stringify(raw) ?? ''): Promise<DocumentSource> {
  if (!isJson(raw)) return plainSource(sanitizeDeep(raw, DOCUMENT_TEXT_CHARS));
  if (text.includes('"$id"')) {
    const clean = sanitizeDeep(raw, DOCUMENT_TEXT_CHARS);
    return plainSource((await dereferenceDocument(clean)).resolved);
  }
  const document = new LazyDocument(raw);
  await document.ready();
  return document;
}

/** A container of the document with its keys cleaned: cleaned name → the raw key. */
type KeyMap = Map<string, string>;

/** What a reference names, as the library reads it: the pointer's tokens, or undefined for no pointer it resolves. */
function pointerTokens(ref: string): string[] | undefined {
  if (ref === '#') return [];
  // Nothing in it that URL parsing or percent decoding would change: its tokens as they are written.
  if (PLAIN_POINTER.test(ref)) return plainTokens(ref);
  if (!ref.startsWith('#/')) return undefined;
  let pointer: string;
  try {
    // The library reads the fragment through a URL (percent escapes mean their characters), keeping trailing spaces.
    const trailing = /\s*$/.exec(ref)?.[0] ?? '';
    pointer = decodeURIComponent(new URL(ref, 'https://document.invalid/').hash.slice(1)) + trailing;
  } catch {
    return undefined;
  }
  return pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A JSON pointer's token as the library writes it in the paths its crawl passes to excludedPathMatcher. */
const pointerToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** How deep a named entry sits: `components/schemas/X`, else `definitions/X`, `paths/{key}`... */
const entryDepth = (tokens: readonly string[]): number => (tokens[0] === 'components' ? 3 : 2);

class LazyDocument implements DocumentSource {
  readonly head: Json;
  readonly keys: readonly string[];
  /** What the library resolves in: cleaned copies of what has been placed, at their places. */
  private readonly root: Json = {};
  private readonly rawPaths: Json;
  private readonly pathKeys: KeyMap;
  private readonly keyMaps = new WeakMap<object, KeyMap>();
  /** Entries copied into `root`, as their tokens joined by `/` (escaped). */
  private readonly placed = new Set<string>();
  /** Entries references name that the document does not hold. */
  private readonly missing = new Set<string>();
  private readonly items = new Map<string, unknown>();
  /** Path items placed whose references were followed only as far as a reading reads them. */
  private readonly partly = new Set<string>();
  private readonly answered = new Map<string, unknown>();
  private readonly parser = new $RefParser();
  private readonly plain: PlainReferences;
  private readonly options = jsonSchemaParserNormalizeArgs([{}, OPTIONS]).options;

  constructor(private readonly raw: Json) {
    const rootKeys = this.keyMap(raw);
    for (const [name, key] of rootKeys) {
      const value = raw[key];
      // Scalars say which OpenAPI this is (the library reads `openapi`); `paths` is filled as items are asked for.
      if (typeof value !== 'object' || value === null) setOwn(this.root, name, sanitizeDeep(value, DOCUMENT_TEXT_CHARS));
    }
    const paths = rootKeys.has('paths') ? raw[rootKeys.get('paths') as string] : undefined;
    this.rawPaths = isJson(paths) ? paths : {};
    this.pathKeys = this.keyMap(this.rawPaths);
    this.keys = [...this.pathKeys.keys()];
    setOwn(this.root, 'paths', {});
    this.head = { basePath: this.root['basePath'] };
    this.plain = new PlainReferences(raw, {
      names: (value) => {
        const keys = Object.keys(value);
        return { keys, names: keys.every((key) => cleanText(key, 100) === key) ? keys : cleanKeyNames(keys) };
      },
      keyOf: (value, name) => this.member(value, name),
      text: (value) => cleanText(value, DOCUMENT_TEXT_CHARS),
    });
  }

  /** The library's hold on `root`, and `servers` read (a relative server moves every key). */
  async ready(): Promise<void> {
    await this.parser.parse(this.root, OPTIONS);
    this.place(['servers']);
    if (hasReference(this.root['servers'])) this.crawl(['#/servers']);
    this.head['servers'] = this.root['servers'];
  }

  shape(key: string): ItemShape {
    const item = this.rawPaths[this.pathKeys.get(key) ?? ''];
    if (isJson(item)) {
      // A path item by reference: what it holds is known once it is resolved.
      if (this.member(item, '$ref') !== undefined) return { kind: 'unknown' };
      const getKey = this.member(item, 'get');
      const get = getKey === undefined ? undefined : item[getKey];
      if (isJson(get)) {
        if (this.member(get, '$ref') !== undefined) return { kind: 'unknown' };
        const idKey = this.member(get, 'operationId');
        const id = idKey === undefined ? undefined : get[idKey];
        return { kind: 'get', operationId: typeof id === 'string' ? cleanText(id, DOCUMENT_TEXT_CHARS) : id };
      }
      return shapeOf(item, get, getKey !== undefined);
    }
    return shapeOf(item, undefined, false);
  }

  item(key: string): unknown {
    if (!this.items.has(key)) this.prefetch([key]);
    return this.items.get(key);
  }

  prefetch(keys: readonly string[]): void {
    const wanted = [...new Set(keys)].filter((key) => !this.items.has(key) && this.pathKeys.has(key));
    if (wanted.length === 0) return;
    const paths = (): Json => this.root['paths'] as Json;
    const left: string[] = [];
    for (const key of wanted) {
      const raw = this.rawPaths[this.pathKeys.get(key) as string];
      const at = `paths/${pointerToken(key)}`;
      if (!this.placed.has(at) && !this.placed.has('')) {
        // Nothing to clean or resolve in what is read: read as it is (the parts never read are never looked at).
        if (cleanAsRead(raw, 'listing') && !hasReference(readParts(raw, 'listing'))) {
          this.items.set(key, raw);
          continue;
        }
        // What is read, cleaned, its references as generators write them resolved (plain-references.ts); the library resolves the rest.
        const direct = this.direct(raw, 'listing');
        if (direct !== undefined) {
          this.items.set(key, direct.read);
          continue;
        }
      }
      this.place(['paths', key], 'listing');
      if (hasReference(readParts(paths()[key], 'listing'))) left.push(key);
    }
    if (
      left.length > 0 &&
      !this.crawl(
        left.map((key) => `#/paths/${pointerToken(key)}`),
        'listing',
      )
    ) {
      // The library could not walk these items (a chain too deep): read as they came, each `$ref` then unreadable.
      for (const key of left) setOwn(paths(), key, sanitizeDeep(this.rawPaths[this.pathKeys.get(key) as string], DOCUMENT_TEXT_CHARS));
    }
    // Read after the crawl: an item that is itself a reference is replaced by what it names.
    for (const key of wanted) if (!this.items.has(key)) this.items.set(key, paths()[key]);
  }

  answers(key: string): unknown {
    if (this.answered.has(key)) return this.answered.get(key);
    let answers: unknown;
    const raw = this.rawPaths[this.pathKeys.get(key) ?? ''];
    const direct = this.pathKeys.has(key) ? this.direct(raw, 'answers') : undefined;
    if (direct !== undefined) answers = responsesOf(direct.read);
    else if (this.pathKeys.has(key)) {
      const paths = this.root['paths'] as Json;
      this.place(['paths', key], 'answers');
      // The library could not walk them (a chain too deep): read as they came, each `$ref` then saying nothing.
      answers = responsesOf(this.crawl([`#/paths/${pointerToken(key)}`], 'answers') ? paths[key] : sanitizeDeep(raw, DOCUMENT_TEXT_CHARS));
    }
    this.answered.set(key, answers);
    return answers;
  }

  only(key: string): DocumentSource {
    const keys = this.pathKeys.has(key) ? [key] : [];
    return {
      head: this.head,
      keys,
      shape: (k) => this.shape(k),
      item: (k) => this.item(k),
      answers: (k) => this.answers(k),
      prefetch: (wanted) => this.prefetch(wanted.filter((k) => k === key)),
      only: (k) => this.only(k),
    };
  }

  /**
   * The key as received of the member cleaning names `name`: in a small object, its keys
   * judged again rather than indexed (the import asks this of every path item of a registry).
   */
  private member(value: Json, name: string): string | undefined {
    const keys = Object.keys(value);
    if (keys.length <= SMALL_OBJECT && keys.every((key) => cleanText(key, 100) === key))
      return Object.hasOwn(value, name) ? name : undefined;
    return this.keyMap(value).get(name);
  }

  /** The cleaned names of an object's keys, made once per object. */
  private keyMap(value: object): KeyMap {
    let map = this.keyMaps.get(value);
    if (!map) {
      const keys = Object.keys(value);
      const names = keys.every((key) => cleanText(key, 100) === key) ? keys : cleanKeyNames(keys);
      map = new Map(names.map((name, index) => [name, keys[index] as string]));
      this.keyMaps.set(value, map);
    }
    return map;
  }

  /**
   * Copies the entry `tokens` names (cleaned) into `root`, with whatever its references name in
   * turn. An entry inside one already placed is there already. A path item placed for a
   * `reading` has only the references in the parts it reads followed; the rest are followed
   * when another reading asks for the item, or a reference names something inside it.
   */
  private place(tokens: readonly string[], reading?: ItemReading): void {
    const pending: (readonly string[])[] = [];
    const follow = (refs: readonly string[]): void => {
      for (const ref of refs) {
        const target = pointerTokens(ref);
        if (target !== undefined) pending.push(target.slice(0, entryDepth(target)));
      }
    };
    const key = tokens[1];
    if (reading !== undefined && tokens.length === 2 && tokens[0] === 'paths' && key !== undefined) {
      const id = `paths/${pointerToken(key)}`;
      const before = this.placed.has(id) || this.placed.has('');
      this.placeOne(tokens);
      if (!before && this.placed.has(id)) this.partly.add(key);
      if (this.partly.has(key)) follow(referencesIn(readParts((this.root['paths'] as Json)[key], reading)));
    } else pending.push(tokens);
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      follow(this.placeOne(next));
      // A reference into a path item placed for a reading: every reference of that item is followed now.
      const item = next[0] === 'paths' ? next[1] : undefined;
      if (item !== undefined && next.length === 2 && this.partly.delete(item)) follow(referencesIn((this.root['paths'] as Json)[item]));
    }
  }

  /** One entry copied into place, with the references in it; none when it is placed already or names nothing. */
  private placeOne(tokens: readonly string[]): string[] {
    // '' is the whole document, placed by a reference to it; an entry inside one placed is there already.
    if (this.placed.has('')) return [];
    let id = '';
    for (const token of tokens) {
      id = id === '' ? pointerToken(token) : `${id}/${pointerToken(token)}`;
      if (this.placed.has(id)) return [];
    }
    if (this.missing.has(id)) return [];
    // Where the raw entry is, by cleaned names; a token that is no key (the library also reads `a/b` as one key) takes its container whole.
    let source: unknown = this.raw;
    let depth = 0;
    for (; depth < tokens.length; depth += 1) {
      if (!isJson(source) && !Array.isArray(source)) return [];
      const token = tokens[depth] as string;
      const key = Array.isArray(source) ? (/^(0|[1-9][0-9]*)$/.test(token) ? token : undefined) : this.keyMap(source).get(token);
      if (key === undefined) {
        const prefixed = isJson(source) && [...this.keyMap(source).keys()].some((name) => name.startsWith(`${token}/`));
        if (prefixed) break;
        // A reference to nothing: the library reads it as null.
        this.missing.add(id);
        return [];
      }
      source = (source as Json)[key];
    }
    const at = tokens.slice(0, depth);
    if (at.length < tokens.length) return this.placeOne(at);
    if (at.length === 0) return this.placeWhole();
    // A whole section (a reference to `#/components/schemas`) holds the entries placed in it before.
    if (at.length < entryDepth(at)) for (const done of [...this.placed]) if (done.startsWith(`${id}/`)) this.placed.delete(done);
    this.placed.add(id);
    // Always a copy: the library writes into what references name (a `description` beside a `$ref`).
    const refs: string[] = [];
    const copy = cleanCopy(source, refs);
    let container = this.root;
    for (const token of at.slice(0, -1)) {
      if (!isJson(container[token]) && !Array.isArray(container[token])) setOwn(container, token, {});
      container = container[token] as Json;
    }
    setOwn(container, at[at.length - 1] as string, copy);
    return refs;
  }

  /** A reference to the document itself: every part of it placed (path items already placed keep their copies). */
  private placeWhole(): string[] {
    const refs: string[] = [];
    const whole = cleanCopy(this.raw, refs) as Json;
    for (const [name, value] of Object.entries(whole)) if (name !== 'paths') setOwn(this.root, name, value);
    const paths = this.root['paths'] as Json;
    for (const [name, value] of Object.entries(isJson(whole['paths']) ? whole['paths'] : {}))
      if (!this.placed.has(`paths/${pointerToken(name)}`)) setOwn(paths, name, value);
    this.placed.clear();
    this.placed.add('');
    return refs;
  }

  /**
   * The parts `reading` reads of a path item as received, cleaned and resolved without the
   * library (plain-references.ts); undefined when a reference in them is the library's to resolve.
   */
  private direct(raw: unknown, reading: ItemReading): { read: unknown } | undefined {
    try {
      return { read: this.plain.item(raw, reading) };
    } catch (error) {
      if (error instanceof NotPlain) return undefined;
      throw error;
    }
  }

  /**
   * The library's crawl, kept to the parts named (JSON pointers below the root) and, inside a
   * path item, to what `reading` reads; false when it threw.
   */
  private crawl(parts: readonly string[], reading: ItemReading = 'listing'): boolean {
    const allowed = new Set(parts);
    this.options.dereference.excludedPathMatcher = (path: string): boolean => {
      if (path === '#' || path === '#/paths') return false;
      const second = path.indexOf('/', 2);
      const top = second < 0 ? path : path.slice(0, second);
      if (top !== '#/paths') return !allowed.has(top);
      const third = path.indexOf('/', 8);
      if (!allowed.has(third < 0 ? path : path.slice(0, third))) return true;
      // Inside an item asked for, what the reading does not read is not resolved (yet).
      return (
        third >= 0 &&
        !readsAt(
          path
            .slice(third + 1)
            .split('/')
            .map(pointerDecoded),
          reading,
        )
      );
    };
    try {
      dereferenceInternal(this.parser, this.options);
      return true;
    } catch {
      return false;
    }
  }
}

/** A plain data property, also for a key named `__proto__`. */
function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The `$ref` texts in these parts of a cleaned copy, each object looked at once (one partly
 * resolved already shares objects); `first` stops at the first one found.
 */
function referencesIn(value: unknown, first = false): string[] {
  const refs: string[] = [];
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    const record = node as Json;
    if (typeof record['$ref'] === 'string') {
      refs.push(record['$ref']);
      if (first) return refs;
    }
    for (const key in record) stack.push(record[key]);
  }
  return refs;
}

/** Whether a cleaned copy holds a `$ref` anywhere. */
const hasReference = (value: unknown): boolean => referencesIn(value, true).length > 0;

const pointerDecoded = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');

/** Printable ASCII, tab and newline: text with nothing hidden or control in it. */
const PLAIN = /^[\x20-\x7e\t\n]*$/;

/** sanitizeText, without its Unicode match for text that has nothing to strip (most of a document). */
function cleanText(value: string, maxLength: number): string {
  return value.length <= maxLength && PLAIN.test(value) && redactSecrets(value) === value ? value : sanitizeText(value, maxLength);
}

/** Objects of at most this many keys are looked up without an index of their cleaned names. */
const SMALL_OBJECT = 16;

/** Whether what a reading reads of a path item as parsed is clean already, and the keys that lead to it. */
function cleanAsRead(item: unknown, reading: ItemReading): boolean {
  const visit = (value: unknown, how: PartReading): boolean => {
    if (how === undefined) return true;
    if (how === 'whole' || !isJson(value)) return isClean(value);
    for (const key of Object.keys(value)) if (cleanText(key, 100) !== key || !visit(value[key], how(key))) return false;
    return true;
  };
  return visit(item, itemReading(reading));
}

/** Whether a part of the document as parsed is clean already: every text and key as cleaning would leave it. */
function isClean(value: unknown): boolean {
  const stack: unknown[] = [value];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node === 'string') {
      if (cleanText(node, DOCUMENT_TEXT_CHARS) !== node) return false;
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    const record = node as Json;
    for (const key of Object.keys(record)) {
      if (cleanText(key, 100) !== key) return false;
      stack.push(record[key]);
    }
  }
  return true;
}

/**
 * sanitizeDeep(value, DOCUMENT_TEXT_CHARS), made faster for clean text, also gathering the
 * `$ref` texts it copies into `refs` (test/catalog/document-reading.test.ts holds what is read equal).
 */
function cleanCopy(value: unknown, refs: string[]): unknown {
  if (typeof value === 'string') return cleanText(value, DOCUMENT_TEXT_CHARS);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => cleanCopy(item, refs));
  const record = value as Json;
  const keys = Object.keys(record);
  const names = keys.every((key) => cleanText(key, 100) === key) ? keys : cleanKeyNames(keys);
  const copy: Json = {};
  for (const [index, key] of keys.entries()) {
    const name = names[index] as string;
    const item = cleanCopy(record[key], refs);
    if (name === '__proto__') setOwn(copy, name, item);
    else copy[name] = item;
    if (name === '$ref' && typeof item === 'string') refs.push(item);
  }
  return copy;
}
