/**
 * Text that came from outside (upstream payloads, user input echoed in hints) is data,
 * not instructions: strip what can hide or reorder text, and cap its length.
 */
import { redactSecrets } from './secrets.js';
import { wholeCharacters } from './text-cut.js';

// By Unicode property rather than by a hand-kept list of ranges, so that a new invisible
// character is covered the day the engine knows it: controls (Cc) except tab and newline,
// format characters (Cf: zero-width, bidi embeddings, overrides and isolates, U+061C,
// U+00AD, the BOM, the tag characters U+E0000 to U+E007F used for "ASCII smuggling"),
// private use (Co), unassigned code points (Cn), lone surrogates (Cs), and the line and
// paragraph separators.
const HIDDEN_OR_CONTROL = /(?![\t\n])[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\u2028\u2029]/gu;

/** Cuts after a whole character (text-cut.ts), so an emoji or an accented letter at the cut is dropped whole, never halved. */
function truncate(value: string, maxLength: number): string {
  if (value.length <= maxLength) return value;
  return `${wholeCharacters(value, Math.max(0, maxLength - 1))}…`;
}

/**
 * Anything but printable ASCII, tab and newline: a string without one has nothing hidden or
 * control to strip. Most of a page's strings are such (tickers, dates, field names), and this
 * test costs a fraction of the Unicode property match, asked of every string of every answer.
 */
const NOT_PLAIN = /[^\x20-\x7e\t\n]/;

export function sanitizeText(value: string, maxLength = 2000): string {
  const visible = NOT_PLAIN.test(value) ? value.replace(HIDDEN_OR_CONTROL, '') : value;
  return truncate(redactSecrets(visible), maxLength);
}

/** A hidden or control character as JSON escapes it, `\u202e` (astral ones as their two halves). */
function escapedUnits(char: string): string {
  let escaped = '';
  for (let i = 0; i < char.length; i += 1) escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return escaped;
}

/**
 * A user-supplied value quoted back in an error: short and printable, yet what was sent.
 * Its hidden and control characters are shown escaped (`"S\u0007P\u202eY"`), not dropped:
 * dropped, the refusal quoted `"SPY"` as the invalid ticker and the agent could not see what to fix.
 */
export function quoteValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  // A secret split by hidden characters is still the secret: redacted as the text reads once they are gone.
  const visible = NOT_PLAIN.test(text) ? text.replace(HIDDEN_OR_CONTROL, '') : text;
  if (redactSecrets(visible) !== visible) return JSON.stringify(truncate(redactSecrets(visible), 40));
  // JSON.stringify escapes the quote, the backslash, C0 controls and lone surrogates; the rest of what hides text is escaped here.
  return JSON.stringify(truncate(redactSecrets(text), 40)).replace(HIDDEN_OR_CONTROL, escapedUnits);
}

/** How deep sanitizeDeep follows nesting; deeper payloads are refused by the caller. */
export const MAX_DEPTH = 64;

/** Whether `value` nests objects or arrays deeper than `limit`, counted without recursion. */
export function nestedDeeperThan(value: unknown, limit = MAX_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const top = stack.pop();
    if (!top) break;
    const [item, depth] = top;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Every string in an upstream payload, keys included, cleaned and capped; numbers and
 * structure untouched. Two keys that clean to the same text are both kept: the later
 * one gets a `~2` suffix rather than silently overwriting the first.
 */
export function sanitizeDeep(value: unknown, maxLength = 2000): unknown {
  if (typeof value === 'string') return sanitizeText(value, maxLength);
  if (Array.isArray(value)) return value.map((item) => sanitizeDeep(item, maxLength));
  if (typeof value === 'object' && value !== null) {
    const clean: Record<string, unknown> = {};
    const entries = Object.entries(value);
    const names = cleanKeyNames(entries.map(([key]) => key));
    for (const [index, [, item]] of entries.entries()) {
      // defineProperty: a key named __proto__ stays a plain data key.
      Object.defineProperty(clean, names[index] as string, {
        value: sanitizeDeep(item, maxLength),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return clean;
  }
  return value;
}

/**
 * The names an object's keys take once cleaned, in their order: each key cleaned and capped
 * at 100 characters; a key that cleans to a name already taken gets `~2`, `~3`… A reader that
 * cleans a document a part at a time names its keys as a cleaning of the whole would.
 */
export function cleanKeyNames(keys: readonly string[]): string[] {
  const taken = new Set<string>();
  return keys.map((key) => {
    const base = sanitizeText(key, 100);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}~${n}`;
    taken.add(name);
    return name;
  });
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Text values `sanitizeParsed` cut to its length, and the longest before the cut. */
export interface TextCuts {
  count: number;
  longest: number;
}

/** Nodes and characters cleaned between two turns of the event loop. */
const CLEAN_SLICE = 16 * 1024;

/**
 * `sanitizeDeep` for a payload just parsed, which nothing else holds: strings are cleaned
 * where they lie, and only an object whose keys change is rebuilt, so a page of millions of
 * rows is not copied whole; the walk gives the event loop a turn every slice of work.
 */
export async function sanitizeParsed(value: unknown, maxLength = 2000, cuts?: TextCuts): Promise<unknown> {
  if (typeof value !== 'object' || value === null) return sanitizeDeep(value, maxLength);
  let work = 0;
  const spend = (units: number): void => {
    work += units;
  };
  // Counts work: true when the event loop is due a turn, also inside one very wide object.
  const due = (units: number): boolean => {
    work += units;
    if (work < CLEAN_SLICE) return false;
    work = 0;
    return true;
  };
  const root = cleanKeys(value, spend);
  const pending: object[] = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const record = node as Record<string, unknown>;
    const keys = Array.isArray(node) ? undefined : Object.keys(node);
    const count = keys ? keys.length : (node as unknown[]).length;
    for (let i = 0; i < count; i += 1) {
      const key = keys ? (keys[i] as string) : i;
      const item = record[key];
      let clean = item;
      // No await unless a turn is due: an await an element cost 100,000 microtasks in one turn on a page of empty rows.
      let turn = false;
      if (typeof item === 'string') {
        clean = sanitizeText(item, maxLength);
        // Cut, not only cleaned: said in the answer, never silently shortened.
        if (cuts && item.length > maxLength && item.replace(HIDDEN_OR_CONTROL, '').length > maxLength) {
          cuts.count += 1;
          cuts.longest = Math.max(cuts.longest, item.length);
        }
        turn = due(1 + (item.length >> 4));
      } else if (typeof item === 'object' && item !== null) {
        clean = cleanKeys(item, spend);
        pending.push(clean as object);
        turn = due(1);
      } else turn = due(1);
      // defineProperty: a key named __proto__ stays a plain data key.
      if (clean !== item) Object.defineProperty(record, key, { value: clean, enumerable: true, writable: true, configurable: true });
      if (turn) await nextTurn();
    }
    if (due(1)) await nextTurn();
  }
  return root;
}

/**
 * The object itself when its keys are clean, else a copy with cleaned keys (values
 * untouched, cleaned later). In one go: a parsed body holds no object wider than
 * sliced-json.ts MAX_OBJECT_KEYS (a slice's worth at most), and its work is counted.
 */
function cleanKeys(value: object, spend: (units: number) => void): object {
  if (Array.isArray(value)) return value as unknown[];
  const keys = Object.keys(value);
  let dirty = false;
  for (const key of keys) {
    if (sanitizeText(key, 100) !== key) {
      dirty = true;
      break;
    }
  }
  spend(keys.length);
  if (!dirty) return value;
  const source = value as Record<string, unknown>;
  const clean: Record<string, unknown> = {};
  for (const key of keys) {
    const base = sanitizeText(key, 100);
    let name = base;
    for (let n = 2; Object.hasOwn(clean, name); n += 1) name = `${base}~${n}`;
    Object.defineProperty(clean, name, { value: source[key], enumerable: true, writable: true, configurable: true });
  }
  spend(keys.length);
  return clean;
}
