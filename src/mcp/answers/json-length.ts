/** What one walk counts a scalar and an object's key as, in characters of compact JSON. */
interface JsonCosts {
  scalar: (item: string | number | bigint | boolean | null) => number;
  key: (key: string) => number;
}

/**
 * Whether a value's JSON, its scalars and keys counted by `costs`, is longer than a bound,
 * reading no more of it than the bound: a row of 200,000 fields is known not to fit after
 * about the bound's worth of fields, not after JSON.stringify.
 */
function longerThan(value: unknown, limit: number, costs: JsonCosts): boolean {
  let length = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      length += 1 + Math.max(1, item.length);
      for (let i = item.length - 1; i >= 0 && length <= limit; i -= 1) pending.push(item[i]);
    } else if (typeof item === 'object' && item !== null) {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record);
      length += 1 + Math.max(1, keys.length);
      for (const key of keys) {
        length += costs.key(key);
        if (length > limit) return true;
        pending.push(record[key]);
      }
    } else if (
      typeof item === 'string' ||
      typeof item === 'number' ||
      typeof item === 'bigint' ||
      typeof item === 'boolean' ||
      item === null
    )
      length += costs.scalar(item);
    if (length > limit) return true;
  }
  return false;
}

/** Exact for what JSON writes without escapes; undefined values are left out by JSON but cost little here. */
const EXACT: JsonCosts = {
  scalar: (item) =>
    typeof item === 'string' ? item.length + 2 : typeof item === 'boolean' ? (item ? 4 : 5) : item === null ? 4 : String(item).length,
  // A key costs its quotes and colon at least.
  key: (key) => key.length + 3,
};

/** The most characters a number takes in JSON (-1.2345678901234567e-308). */
const LONGEST_NUMBER = 24;
/** What JSON writes as more than one character: quotes, backslashes, controls and surrogates (lone ones are escaped). */
// eslint-disable-next-line no-control-regex
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string's length in JSON: its own and its quotes, or, when it holds what JSON escapes, what JSON writes. */
function stringJsonLength(text: string): number {
  return ESCAPED.test(text) ? JSON.stringify(text).length : text.length + 2;
}

/** An upper bound that turns no number into text (most of a market page's values are numbers). */
const UPPER_BOUND: JsonCosts = {
  scalar: (item) =>
    typeof item === 'string' ? stringJsonLength(item) : typeof item === 'number' || typeof item === 'bigint' ? LONGEST_NUMBER : 5,
  key: (key) => stringJsonLength(key) + 1,
};

/**
 * Whether a value's compact JSON is longer than a bound, found without serializing it and
 * reading no more of it than the bound: a row of 200,000 fields (3 MB of JSON) is known
 * not to fit a budget after about the budget's worth of fields, not after JSON.stringify.
 */
export function jsonLongerThan(value: unknown, limit: number): boolean {
  return longerThan(value, limit, EXACT);
}

/**
 * Whether a value's compact JSON may be longer than a bound: false means it is not. Like
 * `jsonLongerThan`, but a number counts as the longest a number can be, so that no number is
 * turned into text to measure it: a bound to decide cheaply that a page is short, never that
 * one is long.
 */
export function jsonMayBeLongerThan(value: unknown, limit: number): boolean {
  return longerThan(value, limit, UPPER_BOUND);
}
