/**
 * JSON.parse of a large upstream body a slice at a time. One JSON.parse of an 8 MiB page of
 * 2.5 million empty rows held the event loop ~0.7 s (more under V8's small-heap flag, which
 * collects garbage inside the parse), so no `ping` or other call was answered meanwhile.
 *
 * Two linear passes, each cut into slices with a turn of the event loop between them:
 * the first finds every object or array whose text is longer than a slice (and checks the
 * nesting depth on the text, so a too-deep body is refused before anything is built); the
 * second builds only those large containers here and hands the rest, a slice of text at a
 * time, to the native JSON.parse, which also validates it. Small bodies take JSON.parse
 * directly.
 *
 * An array keeps at most `maxItems` elements; the rest are scanned (brackets and strings)
 * but not built, and counted. Slicing bounds the parse's own stretches, not the garbage
 * collector's: its pauses grow with the objects alive, and 2.5 million rows held alive
 * cost pauses of 0.2-0.6 s on a loaded 2-core machine, whatever the parse did between.
 * No API page comes near (the spec's limits are at most 5,000 rows).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Characters of text scanned or parsed between two turns of the event loop (a few ms). */
const PARSE_SLICE_CHARS = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Elements an array keeps: twenty times the largest page the API serves (5,000 rows). */
export const MAX_ARRAY_ITEMS = 100_000;
/**
 * Members an object keeps: thirty times the widest row a dataset has (under 64 fields). A
 * row of 200,000 fields (3.2 MB) held the event loop 471 ms while trimming walked it whole,
 * several times; cut here, what follows never sees more than this many keys (or, in an
 * object shorter than a slice of text, which JSON.parse builds whole, a slice's worth).
 */
export const MAX_OBJECT_KEYS = 2_000;

export type SlicedParse =
  | {
      value: unknown;
      tooDeep: false;
      /** Elements past `maxItems` left out of their arrays, in all arrays together. */
      leftOut: number;
      /** Members past `maxKeys` left out of their objects, in all objects together. */
      fieldsLeftOut: number;
    }
  | { value: undefined; tooDeep: true; leftOut: 0; fieldsLeftOut: 0 };

export interface SlicedOptions {
  maxDepth: number;
  maxItems?: number | undefined;
  maxKeys?: number | undefined;
  sliceChars?: number | undefined;
}

/**
 * The value of `text`, or `tooDeep` when it nests objects and arrays more than `maxDepth`
 * levels (as `nestedDeeperThan` counts them). Throws a SyntaxError on text that is not JSON.
 */
export async function parseSliced(text: string, options: SlicedOptions): Promise<SlicedParse> {
  const sliceChars = options.sliceChars ?? PARSE_SLICE_CHARS;
  const ends = await largeContainers(text, options.maxDepth, sliceChars);
  if (ends === undefined) return { value: undefined, tooDeep: true, leftOut: 0, fieldsLeftOut: 0 };
  const root = skipSpace(text, 0);
  const end = ends.get(root);
  if (end === undefined) return { value: JSON.parse(text) as unknown, tooDeep: false, leftOut: 0, fieldsLeftOut: 0 };
  if (skipSpace(text, end) !== text.length) throw new SyntaxError('Unexpected text after the JSON value');
  const builder = new Builder(text, ends, sliceChars, options.maxItems ?? MAX_ARRAY_ITEMS, options.maxKeys ?? MAX_OBJECT_KEYS);
  const value = await builder.container(root);
  return { value, tooDeep: false, leftOut: builder.leftOut, fieldsLeftOut: builder.fieldsLeftOut };
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isSpace(text.charCodeAt(i))) i += 1;
  return i;
}

/** The index just after the string that opens at `from` (a quote). */
function stringEnd(text: string, from: number): number {
  let i = from + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) throw new SyntaxError('Unterminated string in JSON');
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/**
 * Start → end (exclusive) of every object or array longer than `sliceChars`; undefined
 * when the nesting is deeper than `maxDepth`.
 */
async function largeContainers(text: string, maxDepth: number, sliceChars: number): Promise<Map<number, number> | undefined> {
  const ends = new Map<number, number>();
  const open: number[] = [];
  let nextYield = sliceChars;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = stringEnd(text, i);
      continue;
    }
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (open.length >= maxDepth) return undefined;
      open.push(i);
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      const start = open.pop();
      if (start === undefined || text.charCodeAt(start) !== (code === CLOSE_OBJECT ? OPEN_OBJECT : OPEN_ARRAY))
        throw new SyntaxError('Unbalanced brackets in JSON');
      if (i + 1 - start > sliceChars) ends.set(start, i + 1);
    }
    i += 1;
    if (i >= nextYield) {
      nextYield = i + sliceChars;
      await nextTurn();
    }
  }
  if (open.length > 0) throw new SyntaxError('Unterminated JSON');
  return ends;
}

/** The index just after the value at `from`, known to be no larger than a slice. */
function smallValueEnd(text: string, from: number): number {
  const first = text.charCodeAt(from);
  if (first === QUOTE) return stringEnd(text, from);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let i = from;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === COMMA || code === CLOSE_OBJECT || code === CLOSE_ARRAY || isSpace(code)) break;
      i += 1;
    }
    return i;
  }
  let depth = 0;
  let i = from;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = stringEnd(text, i);
      continue;
    }
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) depth += 1;
    else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
    i += 1;
  }
  throw new SyntaxError('Unterminated JSON');
}

/** A data property even for the key `__proto__`, as JSON.parse makes it. */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** One container being built: its items or members, and the run of small members not yet parsed. */
class ContainerParts {
  readonly items: unknown[] = [];
  readonly members: Record<string, unknown> = {};
  readonly close: number;
  // Consecutive small members, parsed together by JSON.parse: [batchStart, batchEnd).
  private batchStart = -1;
  private batchEnd = -1;
  private batchCount = 0;
  // Members kept so far (a repeated key counts each time, as it was read).
  private kept = 0;

  constructor(
    private readonly text: string,
    readonly isArray: boolean,
  ) {
    this.close = isArray ? CLOSE_ARRAY : CLOSE_OBJECT;
  }

  value(): unknown {
    return this.isArray ? this.items : this.members;
  }

  /** Members kept or waiting in the batch: once at the bound, the rest are left out. */
  count(): number {
    return this.kept + this.batchCount;
  }

  /** Characters of text the batch spans now. */
  batchChars(): number {
    return this.batchStart < 0 ? 0 : this.batchEnd - this.batchStart;
  }

  /** A small member, from its key (or value, in an array) to the end of its value, joins the batch. */
  addSmall(memberStart: number, valueEnd: number): void {
    if (this.batchStart < 0) this.batchStart = memberStart;
    this.batchEnd = valueEnd;
    this.batchCount += 1;
  }

  /** A large member built on its own; `keyEnd` closes its key's string in an object. */
  addLarge(value: unknown, memberStart: number, keyEnd: number): void {
    if (this.isArray) this.items.push(value);
    else defineOwn(this.members, JSON.parse(this.text.slice(memberStart, keyEnd)) as string, value);
    this.kept += 1;
  }

  /** Parses the batch in one JSON.parse into the container: the characters it spanned, or undefined when there was none. */
  flushBatch(): number | undefined {
    if (this.batchStart < 0) return undefined;
    const slice = this.text.slice(this.batchStart, this.batchEnd);
    if (this.isArray) for (const item of JSON.parse(`[${slice}]`) as unknown[]) this.items.push(item);
    else {
      const parsed = JSON.parse(`{${slice}}`) as Record<string, unknown>;
      for (const key of Object.keys(parsed)) defineOwn(this.members, key, parsed[key]);
    }
    const chars = this.batchEnd - this.batchStart;
    this.kept += this.batchCount;
    this.batchStart = -1;
    this.batchCount = 0;
    return chars;
  }
}

class Builder {
  private sinceYield = 0;
  leftOut = 0;
  fieldsLeftOut = 0;

  constructor(
    private readonly text: string,
    private readonly ends: ReadonlyMap<number, number>,
    private readonly sliceChars: number,
    private readonly maxItems: number,
    private readonly maxKeys: number,
  ) {}

  private async spent(chars: number): Promise<void> {
    this.sinceYield += chars;
    if (this.sinceYield < this.sliceChars) return;
    this.sinceYield = 0;
    await nextTurn();
  }

  private async flush(parts: ContainerParts): Promise<void> {
    const chars = parts.flushBatch();
    if (chars !== undefined) await this.spent(chars);
  }

  /** The large object or array that opens at `start`. */
  async container(start: number): Promise<unknown> {
    const text = this.text;
    const parts = new ContainerParts(text, text.charCodeAt(start) === OPEN_ARRAY);
    let i = skipSpace(text, start + 1);
    if (text.charCodeAt(i) === parts.close) return parts.value();
    for (;;) {
      const memberStart = i;
      let keyEnd = i;
      if (!parts.isArray) {
        if (text.charCodeAt(i) !== QUOTE) throw new SyntaxError('Expected a property name in JSON');
        keyEnd = stringEnd(text, i);
        i = skipSpace(text, keyEnd);
        if (text.charCodeAt(i) !== COLON) throw new SyntaxError("Expected ':' in JSON");
        i = skipSpace(text, i + 1);
      }
      const largeEnd = this.ends.get(i);
      let after: number;
      if (parts.count() >= (parts.isArray ? this.maxItems : this.maxKeys)) after = await this.leaveOut(parts, memberStart, i, largeEnd);
      else if (largeEnd !== undefined) {
        await this.flush(parts);
        parts.addLarge(await this.container(i), memberStart, keyEnd);
        after = largeEnd;
      } else {
        after = smallValueEnd(text, i);
        if (after === i) throw new SyntaxError('Expected a value in JSON');
        parts.addSmall(memberStart, after);
      }
      i = skipSpace(text, after);
      const code = text.charCodeAt(i);
      if (code === COMMA) {
        if (parts.batchChars() >= this.sliceChars) await this.flush(parts);
        i = skipSpace(text, i + 1);
        continue;
      }
      if (code !== parts.close) throw new SyntaxError('Expected a comma or the end of a container in JSON');
      await this.flush(parts);
      return parts.value();
    }
  }

  /** A container full: a member past it is scanned to its end, counted, never built. Returns where its value ends. */
  private async leaveOut(parts: ContainerParts, memberStart: number, valueStart: number, largeEnd: number | undefined): Promise<number> {
    const after = largeEnd ?? smallValueEnd(this.text, valueStart);
    if (after === valueStart) throw new SyntaxError('Expected a value in JSON');
    if (parts.isArray) this.leftOut += 1;
    else this.fieldsLeftOut += 1;
    await this.spent(after - memberStart);
    return after;
  }
}

/**
 * Bodies up to this size may be parsed in one native JSON.parse (about 4 ms for 0.9 MB
 * here): the sliced parser, cold at start-up, took 30-44 ms for a big registry's 0.9 MB
 * document, which a first start waits for.
 */
const NATIVE_PARSE_CHARS = 1024 * 1024;
/**
 * Objects and arrays a body may hold and still be parsed in one go: six times a page of
 * the API's largest (5,000 rows), twice a 500-dataset openapi.json (12,000). A 0.3 MB body
 * of 100,000 empty rows built in one go, then walked for its depth, held the event loop
 * 86 ms, most of it the garbage collector's; such a body is built a slice at a time.
 */
const DENSE_CONTAINERS = 32_768;

/** What a body's text holds, read in one linear pass: too deep, or how many containers, the longest array and the widest object. */
function census(text: string, maxDepth: number): { tooDeep: boolean; containers: number; longestArray: number; widestObject: number } {
  // Per open container: the members seen so far (commas at its own level, plus one), and whether it is an object.
  const members = new Int32Array(maxDepth + 1);
  const isObject = new Uint8Array(maxDepth + 1);
  let depth = 0;
  let containers = 0;
  let longestArray = 0;
  let widestObject = 0;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const close = text.indexOf('"', i + 1);
      // Unterminated or escaped: the exact reading (JSON.parse, or the sliced parser) decides.
      i = close < 0 ? length : text.charCodeAt(close - 1) === BACKSLASH ? stringEnd(text, i) : close + 1;
      continue;
    }
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (depth >= maxDepth) return { tooDeep: true, containers, longestArray, widestObject };
      depth += 1;
      members[depth] = 1;
      isObject[depth] = code === OPEN_OBJECT ? 1 : 0;
      containers += 1;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (depth > 0) {
        const count = members[depth] ?? 0;
        if (isObject[depth] === 1) widestObject = Math.max(widestObject, count);
        else longestArray = Math.max(longestArray, count);
        depth -= 1;
      }
    } else if (code === COMMA) members[depth] = (members[depth] ?? 0) + 1;
    i += 1;
  }
  return { tooDeep: false, containers, longestArray, widestObject };
}

interface ValueShape {
  widestObject: number;
}

/** Whether `value` nests objects and arrays more than `limit` levels (as `nestedDeeperThan` counts them), noting its widest object. */
function deeperThan(value: unknown, depth: number, limit: number, shape: ValueShape): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth >= limit) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (deeperThan(item, depth + 1, limit, shape)) return true;
    return false;
  }
  let members = 0;
  for (const key in value) {
    members += 1;
    if (deeperThan((value as Record<string, unknown>)[key], depth + 1, limit, shape)) return true;
  }
  if (members > shape.widestObject) shape.widestObject = members;
  return false;
}

/** A body's value and what reading it found (transport.ts gives it on in its RawResponse). */
export interface ParsedBody {
  body: unknown;
  nestedTooDeep: boolean;
  /** Array elements left out unread (MAX_ARRAY_ITEMS). */
  leftOut: number;
  /** Object members left out unread (MAX_OBJECT_KEYS). */
  fieldsLeftOut: number;
  /** Built a slice at a time (large, dense or wide): what holds it must not serialize it again in one go either. */
  sliced: boolean;
}

/**
 * The value of a body's text, with its depth checked (nothing after walks it again). A body
 * within a slice of text takes one native JSON.parse, its depth judged on the value; a
 * larger one of few containers, none wider than the bounds, one JSON.parse after a scan of
 * its text; any other is built a slice at a time and cut to the bounds while it is read.
 * Throws a SyntaxError on text that is not JSON.
 */
export async function parseBody(text: string, maxDepth: number): Promise<ParsedBody> {
  if (text.length <= PARSE_SLICE_CHARS) {
    // Within a slice: the sliced reader would parse it whole too, so parse it, then judge the
    // value (a walk of its containers costs a fraction of a scan of its every character).
    const body = JSON.parse(text) as unknown;
    const shape: ValueShape = { widestObject: 0 };
    if (deeperThan(body, 0, maxDepth, shape)) return { body: undefined, nestedTooDeep: true, leftOut: 0, fieldsLeftOut: 0, sliced: false };
    // Text this short holds at most 32,768 containers and arrays of as many: only width can be over.
    return { body, nestedTooDeep: false, leftOut: 0, fieldsLeftOut: 0, sliced: shape.widestObject > MAX_OBJECT_KEYS };
  }
  if (text.length <= NATIVE_PARSE_CHARS) {
    const found = census(text, maxDepth);
    if (found.tooDeep) return { body: undefined, nestedTooDeep: true, leftOut: 0, fieldsLeftOut: 0, sliced: false };
    if (found.containers <= DENSE_CONTAINERS && found.longestArray <= MAX_ARRAY_ITEMS && found.widestObject <= MAX_OBJECT_KEYS)
      return { body: JSON.parse(text) as unknown, nestedTooDeep: false, leftOut: 0, fieldsLeftOut: 0, sliced: false };
  }
  const parsed = await parseSliced(text, { maxDepth });
  return { body: parsed.value, nestedTooDeep: parsed.tooDeep, leftOut: parsed.leftOut, fieldsLeftOut: parsed.fieldsLeftOut, sliced: true };
}
