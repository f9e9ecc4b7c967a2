/**
 * A conservative count of o200k tokens for the JSON the server returns: never below what
 * an o200k-class tokenizer counts (checked against gpt-tokenizer's o200k_base in
 * test/mcp/tokens.test.ts), at a fraction of a tokenizer's start-up cost. Numbers split
 * into groups of at most three digits, letter runs rarely merge beyond four letters in
 * tickers and identifiers, and every other ASCII character may stand alone.
 */

const DIGIT = 1;
const LETTER = 2;
const SPACE = 3;
const OTHER = 4;

function kindOf(code: number): number {
  if (code >= 48 && code <= 57) return DIGIT;
  if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return LETTER;
  if (code === 32) return SPACE;
  return OTHER;
}

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
    let j = i + 1;
    if (kind !== OTHER) while (j < n && kindOf(text.charCodeAt(j)) === kind && text.charCodeAt(j) <= 127) j += 1;
    const run = j - i;
    if (kind === DIGIT) tokens += Math.ceil(run / 3);
    else if (kind === LETTER) tokens += 1 + Math.floor(run / 4);
    else if (kind === SPACE) tokens += j < n && kindOf(text.charCodeAt(j)) === LETTER ? Math.max(0, run - 1) : run;
    else tokens += 1;
    i = j;
  }
  return tokens;
}

type Counter = (text: string) => number;
let exact: Promise<Counter> | undefined;

/** The o200k_base tokenizer, loaded on first need only: it takes a few hundred ms to load. */
function exactCounter(): Promise<Counter> {
  exact ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => m.countTokens as Counter);
  return exact;
}

/**
 * Whether `value` fits `budget` o200k tokens. The estimate, an upper bound, settles
 * most answers; only a value near or over the budget is counted by the tokenizer.
 */
export async function fitsTokens(value: unknown, budget: number): Promise<boolean> {
  const text = JSON.stringify(value) ?? '';
  if (estimateTokens(text) <= budget) return true;
  // Every o200k token covers at least one character.
  if (text.length <= budget) return true;
  const count = await exactCounter();
  return count(text) <= budget;
}

/** Exact o200k tokens (loads the tokenizer). */
export async function countTokens(value: unknown): Promise<number> {
  const count = await exactCounter();
  return count(JSON.stringify(value) ?? '');
}
