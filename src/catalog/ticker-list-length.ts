/**
 * A ticker list refused only for how many it names, told as such ("11 tickers: at most 10")
 * rather than as an invalid ticker: a list schema refuses a long list and a misspelt one
 * alike. How many the parameter takes is read off its own schema, which is the catalog's
 * comma-separated text or an upstream document's array (its own `maxItems`), so the count
 * said is the one this upstream takes, never a number assumed here.
 */
import type * as z from 'zod';

/** How far down a list's most is looked for when its schema states none (a text list's 200 characters hold ~100 names). */
const MOST_SEARCHED = 100;

/**
 * The message for a list of well-formed tickers that is only too long for `schema`;
 * undefined for any other value (a misspelt name, a list the schema takes, one name).
 * `typed` is the value in the schema's form: text, or the array a document's list takes;
 * `statedMost` the schema's `maxItems`, where it states one.
 */
export function tooManyTickers(typed: unknown, schema: z.ZodType, statedMost: number | undefined): string | undefined {
  const items = typeof typed === 'string' ? typed.split(',') : Array.isArray(typed) ? typed : undefined;
  if (!items || items.length < 2) return undefined;
  const accepts = (list: readonly unknown[]): boolean => schema.safeParse(typeof typed === 'string' ? list.join(',') : list).success;
  const most = mostTaken(items, accepts, statedMost);
  if (most === undefined) return undefined;
  // Every name is checked in a list of the length the schema takes (the last one overlapping the one before).
  for (let start = 0; start < items.length; start += most) {
    const window = start + most <= items.length ? items.slice(start, start + most) : items.slice(-most);
    if (!accepts(window)) return undefined;
  }
  return `${items.length} tickers: at most ${most} in one call. Split the list into calls of ${most} or fewer.`;
}

/** The longest first part of the list the schema takes, shorter than the list and of two names or more; undefined when none is. */
function mostTaken(
  items: readonly unknown[],
  accepts: (list: readonly unknown[]) => boolean,
  statedMost: number | undefined,
): number | undefined {
  const from = Math.min(items.length - 1, statedMost ?? items.length - 1);
  // A schema that takes no list of two names is one ticker, not a list: "SPY,QQQ" there is a ticker to fix.
  for (let count = from; count >= 2 && from - count < MOST_SEARCHED; count -= 1) if (accepts(items.slice(0, count))) return count;
  return undefined;
}
