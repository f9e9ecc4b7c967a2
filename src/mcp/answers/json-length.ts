/**
 * Whether a value's compact JSON is longer than a bound, found without serializing it and
 * reading no more of it than the bound: a row of 200,000 fields (3 MB of JSON) is known
 * not to fit a budget after about the budget's worth of fields, not after JSON.stringify.
 */
export function jsonLongerThan(value: unknown, limit: number): boolean {
  let length = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') length += item.length + 2;
    else if (typeof item === 'number' || typeof item === 'bigint') length += String(item).length;
    else if (typeof item === 'boolean') length += item ? 4 : 5;
    else if (item === null) length += 4;
    else if (Array.isArray(item)) {
      length += 1 + Math.max(1, item.length);
      for (let i = item.length - 1; i >= 0 && length <= limit; i -= 1) pending.push(item[i]);
    } else if (typeof item === 'object') {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record);
      length += 1 + Math.max(1, keys.length);
      for (const key of keys) {
        // A key costs its quotes and colon at least; undefined values are left out by JSON but cost little here.
        length += key.length + 3;
        if (length > limit) return true;
        pending.push(record[key]);
      }
    }
    if (length > limit) return true;
  }
  return false;
}

/** The most characters a number takes in JSON (-1.2345678901234567e-308). */
const LONGEST_NUMBER = 24;
/** What JSON writes as more than one character: quotes, backslashes, controls and surrogates (lone ones are escaped). */
// eslint-disable-next-line no-control-regex
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string's length in JSON: its own and its quotes, or, when it holds what JSON escapes, what JSON writes. */
function stringJsonLength(text: string): number {
  return ESCAPED.test(text) ? JSON.stringify(text).length : text.length + 2;
}

/**
 * Whether a value's compact JSON may be longer than a bound: false means it is not. Like
 * `jsonLongerThan`, but a number counts as the longest a number can be, so that no number is
 * turned into text to measure it (most of a market page's values are numbers): a bound to
 * decide cheaply that a page is short, never that one is long.
 */
export function jsonMayBeLongerThan(value: unknown, limit: number): boolean {
  let length = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') length += stringJsonLength(item);
    else if (typeof item === 'number' || typeof item === 'bigint') length += LONGEST_NUMBER;
    else if (typeof item === 'boolean' || item === null) length += 5;
    else if (Array.isArray(item)) {
      length += 1 + Math.max(1, item.length);
      for (let i = item.length - 1; i >= 0 && length <= limit; i -= 1) pending.push(item[i]);
    } else if (typeof item === 'object') {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record);
      length += 1 + Math.max(1, keys.length);
      for (const key of keys) {
        length += stringJsonLength(key) + 1;
        if (length > limit) return true;
        pending.push(record[key]);
      }
    }
    if (length > limit) return true;
  }
  return false;
}
