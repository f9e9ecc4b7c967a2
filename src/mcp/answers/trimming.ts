/**
 * Cutting an answer to the token budget in time linear in what it keeps, whatever its
 * shape. Rows are measured once each, by the estimate, and only until the budget is
 * spent: rows past that point are never serialized. The exact o200k count comes last,
 * at most three times, on text no longer than the budget allows, to win back the rows
 * the estimate's margin would cost. Work is cut into slices with a turn of the event loop
 * between them, so that a `ping` or another call is never held long: a 0.3 MB body of
 * 100,000 empty rows once held the loop 60 s through 17 exact counts of the whole page.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { jsonLongerThan } from './json-length.js';
import { estimateTokens, exactTokens, MAX_EXACT_CHARS_PER_TOKEN } from './tokens.js';
import { rowsIn } from '../../api/payload-parts.js';
import { wholeCharacters } from '../../text-cut.js';

/** Characters of JSON serialized and estimated between two turns of the event loop (a few ms). */
const SLICE_CHARS = 64 * 1024;
/** What the meta of a cut answer may add over the one measured first: digits of counts, a longer cursor. */
const META_SLACK_TOKENS = 24;
/** The exact count extends the estimate's rows up to this share of the budget, so a second try rarely misses. */
const EXTEND_TO = 0.98;

/** Counts work done since the last turn of the event loop: `spent` says when the next turn is due. */
export class WorkSlicer {
  private done = 0;

  spent(chars: number): boolean {
    this.done += chars;
    if (this.done < SLICE_CHARS) return false;
    this.done = 0;
    return true;
  }
}

/** What shaping one answer cost, for the debug log and for tests that bound it without a clock. */
export interface ShapingWork {
  /** Rows serialized and estimated. */
  rowsRead: number;
  /** Exact o200k counts, and the characters they read. */
  exactCounts: number;
  exactChars: number;
}

export function newShapingWork(): ShapingWork {
  return { rowsRead: 0, exactCounts: 0, exactChars: 0 };
}

function jsonOf(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** Exact tokens of `text`, or undefined when it is too long to count (then it is taken not to fit). */
async function boundedExact(text: string, budget: number, work: ShapingWork): Promise<number | undefined> {
  if (text.length > budget * MAX_EXACT_CHARS_PER_TOKEN) return undefined;
  work.exactCounts += 1;
  work.exactChars += text.length;
  return exactTokens(text);
}

/**
 * The most leading rows such that `build(kept)` fits `budget` tokens: `count` when all
 * fit, 0 when not even one does. `rowAt(i)` is the i-th row as it will be shown.
 */
export async function fitRows(
  count: number,
  rowAt: (index: number) => unknown,
  build: (kept: number) => unknown,
  budget: number,
  work: ShapingWork = newShapingWork(),
): Promise<number> {
  const slicer = new WorkSlicer();
  const overhead = estimateTokens(jsonOf(build(0))) + META_SLACK_TOKENS;
  const rowTokens: number[] = [];
  let estimated = overhead;
  let kept = 0;
  // A row longer than this (16 characters a token) cannot fit: known without serializing it.
  const longest = budget * MAX_EXACT_CHARS_PER_TOKEN;
  while (kept < count) {
    const row = rowAt(kept);
    if (jsonLongerThan(row, longest)) break;
    const text = jsonOf(row);
    // The comma before every row but the first is counted as a token of its own.
    const tokens = estimateTokens(text) + 1;
    work.rowsRead += 1;
    if (estimated + tokens > budget) break;
    rowTokens.push(tokens);
    estimated += tokens;
    kept += 1;
    if (slicer.spent(text.length)) await nextTurn();
  }
  if (kept === count) return count;
  // The estimate is an upper bound: what it keeps fits, barring the meta's slack.
  while (kept > 0 && estimateTokens(jsonOf(build(kept))) > budget) kept -= 1;
  return extendByExactCount({ kept, count, rowAt, build, budget, slicer, work });
}

/**
 * The last step: the estimate overcounts compact JSON by about 1.7x, so the exact count
 * of what it kept gives the ratio by which more rows are taken; each guess is checked.
 */
interface Extension {
  kept: number;
  count: number;
  rowAt: (index: number) => unknown;
  build: (kept: number) => unknown;
  budget: number;
  slicer: WorkSlicer;
  work: ShapingWork;
}

async function extendByExactCount({ kept, count, rowAt, build, budget, slicer, work }: Extension): Promise<number> {
  if (kept === 0 && jsonLongerThan(rowAt(0), budget * MAX_EXACT_CHARS_PER_TOKEN)) return 0;
  const base = Math.max(kept, 1);
  const baseText = jsonOf(build(base));
  const baseExact = await boundedExact(baseText, budget, work);
  if (baseExact === undefined || baseExact > budget) return kept;
  const ratio = baseExact / Math.max(1, estimateTokens(baseText));
  let predicted = baseExact;
  let guess = base;
  while (guess < count) {
    const row = rowAt(guess);
    if (jsonLongerThan(row, budget * MAX_EXACT_CHARS_PER_TOKEN)) break;
    const text = jsonOf(row);
    const tokens = (estimateTokens(text) + 1) * ratio;
    work.rowsRead += 1;
    if (predicted + tokens > budget * EXTEND_TO) break;
    predicted += tokens;
    guess += 1;
    if (slicer.spent(text.length)) await nextTurn();
  }
  if (guess === base) return base;
  const guessExact = await boundedExact(jsonOf(build(guess)), budget, work);
  if (guessExact === undefined) return base;
  if (guessExact <= budget) return guess;
  // Between the two counts the tokens grow about linearly with the rows: aim a little lower.
  const slope = (guessExact - baseExact) / (guess - base);
  const second = base + Math.floor((budget * 0.97 - baseExact) / slope);
  if (second <= base || second >= guess) return base;
  const secondExact = await boundedExact(jsonOf(build(second)), budget, work);
  return secondExact !== undefined && secondExact <= budget ? second : base;
}

type Path = (string | number)[];
/** More fields than a row of any dataset has: such an object is cut like a long array. */
const WIDE_OBJECT_KEYS = 64;

interface Largest {
  size: number;
  path: Path;
  kind: 'array' | 'object' | 'string';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The largest array anywhere in `value` (by its JSON length), or failing any array the
 * longest string over 40 characters, and the JSON length of the whole. One pass: each
 * node's size is the sum of its children's, never a fresh serialization per level.
 */
function findLargest(value: unknown): { largest: Largest | undefined; total: number } {
  let best: Largest | undefined;
  const path: Path = [];
  const visit = (v: unknown, depth: number): number => {
    if (depth > 64) return jsonOf(v).length;
    if (Array.isArray(v)) {
      let size = 1 + Math.max(1, v.length);
      for (let i = 0; i < v.length; i += 1) {
        path.push(i);
        size += visit(v[i], depth + 1);
        path.pop();
      }
      if (v.length > 1 && (!best || best.kind !== 'array' || size > best.size)) best = { size, path: [...path], kind: 'array' };
      return size;
    }
    if (isRecord(v)) {
      let size = 1 + Math.max(1, Object.keys(v).length);
      for (const [k, item] of Object.entries(v)) {
        path.push(k);
        size += k.length + 3 + visit(item, depth + 1);
        path.pop();
      }
      // A very wide object (a row of thousands of fields) is cut like a long array: keeping
      // none of it would leave an answer of null that claims a row.
      // Arrays go first (rows, levels): an object is cut only when it is wide itself.
      const wide = Object.keys(v).length > WIDE_OBJECT_KEYS;
      if (wide && (!best || best.kind === 'string' || (best.kind === 'object' && size > best.size)))
        best = { size, path: [...path], kind: 'object' };
      return size;
    }
    if (typeof v === 'string') {
      if (v.length > 40 && (!best || (best.kind === 'string' && v.length > best.size)))
        best = { size: v.length, path: [...path], kind: 'string' };
      return v.length + 2;
    }
    return jsonOf(v).length;
  };
  const total = visit(value, 0);
  return { largest: best, total };
}

/**
 * One step of squeezing: shortens the largest array found anywhere, or else the longest
 * string, to `share` of its length (at most half), so that a value far over the budget
 * takes a few rounds, not one per halving.
 */
function cutLargest(value: unknown, budgetChars: number): unknown {
  const { largest: target, total } = findLargest(value);
  if (!target) return undefined;
  // Never below 1/1024 a round: the other parts of the value may be what is over.
  const share = Math.min(0.5, Math.max(1 / 1024, budgetChars / Math.max(1, total)));
  const replace = (v: unknown, depth: number): unknown => {
    if (depth === target.path.length) {
      if (Array.isArray(v)) return v.slice(0, Math.max(1, Math.ceil(v.length * share)));
      if (isRecord(v)) {
        const keys = Object.keys(v);
        return Object.fromEntries(keys.slice(0, Math.max(1, Math.ceil(keys.length * share))).map((k) => [k, v[k]]));
      }
      return typeof v === 'string' ? `${wholeCharacters(v, Math.floor(v.length * share))}…[cut]` : v;
    }
    const key = target.path[depth];
    if (Array.isArray(v) && typeof key === 'number') return v.map((item: unknown, i) => (i === key ? replace(item, depth + 1) : item));
    if (isRecord(v) && typeof key === 'string') return { ...v, [key]: replace(v[key], depth + 1) };
    return v;
  };
  return replace(value, 0);
}

/**
 * Cuts the largest nested array, then the longest strings, until `value` fits `budget`
 * by the estimate; null when nothing is left to cut. A turn of the event loop between rounds.
 */
export async function squeeze(value: unknown, wrap: (v: unknown) => unknown, budget: number): Promise<unknown> {
  let current = value;
  for (let round = 0; round < 80; round += 1) {
    const text = jsonOf(wrap(current));
    if (estimateTokens(text) <= budget) return current;
    // Aim at twice the budget in characters: a token of compact JSON covers more than one.
    const next = cutLargest(current, Math.max(1, budget * 2 - (text.length - jsonOf(current).length)));
    if (next === undefined) return null;
    current = next;
    await nextTurn();
  }
  return estimateTokens(jsonOf(wrap(current))) <= budget ? current : null;
}

/** The field names the rows of `data` have, read a slice at a time. */
export async function fieldNamesOf(data: unknown): Promise<string[]> {
  // The rows' fields, where rows stand with context beside them (`{period, rows}`), not the wrapper's.
  const rows = Array.isArray(data) ? data : (rowsIn(data) ?? [data]);
  const names = new Set<string>();
  const slicer = new WorkSlicer();
  for (const row of rows) {
    if (!isRecord(row)) continue;
    // Reading a row's keys costs about what serializing them would: a very wide row takes several turns.
    for (const key of Object.keys(row)) {
      names.add(key);
      if (slicer.spent(16)) await nextTurn();
    }
    // A row's keys are listed even when it has none: 100,000 empty rows took 30 ms in one turn at 2 a row.
    if (slicer.spent(16)) await nextTurn();
  }
  return [...names];
}
