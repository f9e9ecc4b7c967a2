/**
 * Token counts for the JSON the server returns, in o200k tokens. Two counters: a fast
 * estimate, an upper bound (checked against o200k in test/answers/budget.test.ts) that
 * settles most answers and steers trimming; and the exact count (src/mcp/answers/o200k.ts, about
 * 4 MiB once loaded), used only for the last step of trimming and only on bounded text.
 * Numbers split into groups of at most three digits, letter runs rarely merge beyond four
 * letters in tickers and identifiers, and every other ASCII character may stand alone.
 */
import { o200kCounter } from './o200k.js';

const DIGIT = 1;
const LETTER = 2;
const SPACE = 3;
const OTHER = 4;

/** The kind of each ASCII character, looked up once rather than worked out twice a character. */
const ASCII_KINDS = new Uint8Array(128).fill(OTHER);
for (let code = 48; code <= 57; code += 1) ASCII_KINDS[code] = DIGIT;
for (let code = 65; code <= 90; code += 1) ASCII_KINDS[code] = LETTER;
for (let code = 97; code <= 122; code += 1) ASCII_KINDS[code] = LETTER;
ASCII_KINDS[32] = SPACE;

/** The kind of a character code: outside ASCII, OTHER. */
function kindOf(code: number): number {
  return code < 128 ? (ASCII_KINDS[code] ?? OTHER) : OTHER;
}

/** Read over the whole text of every answer (about 10 kB for a small page): one table look-up a character. */
export function estimateTokens(text: string): number {
  let tokens = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const code = text.charCodeAt(i);
    if (code > 127) {
      // Outside ASCII a character can cost one token per UTF-8 byte.
      tokens += code < 0x800 ? 2 : 3;
      i += 1;
      continue;
    }
    const kind = kindOf(code);
    if (kind === OTHER) {
      tokens += 1;
      i += 1;
      continue;
    }
    let j = i + 1;
    while (j < n && kindOf(text.charCodeAt(j)) === kind) j += 1;
    const run = j - i;
    if (kind === DIGIT) tokens += Math.ceil(run / 3);
    else if (kind === LETTER) tokens += 1 + (run >> 2);
    else tokens += j < n && kindOf(text.charCodeAt(j)) === LETTER ? run - 1 : run;
    i = j;
  }
  return tokens;
}

/**
 * Compact JSON longer than this many characters a token is taken not to fit without an
 * exact count: no o200k count of our JSON comes near it (a token of compact JSON covers
 * ~3 characters), and it keeps the exact counter off unbounded input.
 */
export const MAX_EXACT_CHARS_PER_TOKEN = 16;

/**
 * Exact o200k tokens of `text` (loads the counter on first need), or undefined when the
 * vocabulary cannot be read (a package that left out dist/o200k.ranks): callers then keep
 * to the estimate, which only ever trims more.
 */
export async function exactTokens(text: string): Promise<number | undefined> {
  const counter = await o200kCounter().catch(() => undefined);
  return counter?.count(text);
}

/**
 * Whether `value` fits `budget` o200k tokens. The estimate, an upper bound, settles
 * most answers; only a value near the budget is counted exactly, and one far over it
 * (more than MAX_EXACT_CHARS_PER_TOKEN characters a token) is taken not to fit.
 */
export async function fitsTokens(value: unknown, budget: number): Promise<boolean> {
  const text = JSON.stringify(value) ?? '';
  return textFits(text, budget);
}

export async function textFits(text: string, budget: number): Promise<boolean> {
  if (estimateTokens(text) <= budget) return true;
  // Every o200k token covers at least one character.
  if (text.length <= budget) return true;
  if (text.length > budget * MAX_EXACT_CHARS_PER_TOKEN) return false;
  const exact = await exactTokens(text);
  return exact !== undefined && exact <= budget;
}
