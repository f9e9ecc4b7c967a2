/**
 * Successful results: `{ data, meta }` as structuredContent (complete on its own, since
 * some hosts show the model nothing else) and the same JSON, compact, as text. A result
 * over the budget is trimmed structurally, never by cutting a string.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ApiResult } from '../api/client.js';
import type { ResultMeta } from '../api/result-meta.js';

/** About four characters of JSON to a token. */
const CHARS_PER_TOKEN = 4;

export interface ShapeOptions {
  budgetTokens: number;
  fields?: readonly string[] | undefined;
  simulated: boolean;
}

type Row = Record<string, unknown>;

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keeps only `fields` of each row; undefined when none of them exists (nothing to show). */
export function project(data: unknown, fields: readonly string[]): { data: unknown; available: string[] } {
  const rows = Array.isArray(data) ? data : [data];
  const available = [...new Set(rows.filter(isRow).flatMap((r) => Object.keys(r)))];
  const pick = (row: unknown): unknown => (isRow(row) ? Object.fromEntries(fields.filter((f) => f in row).map((f) => [f, row[f]])) : row);
  return { data: Array.isArray(data) ? data.map(pick) : pick(data), available };
}

interface Trim {
  data: unknown;
  trimmed?: NonNullable<ResultMeta['trimmed']>;
}

function size(value: unknown): number {
  return JSON.stringify(value).length;
}

/** The largest prefix of `rows` (at least one row) that fits `budget` characters. */
function fittingPrefix(rows: unknown[], budget: number): number {
  let low = 1;
  let high = rows.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (size(rows.slice(0, mid)) <= budget) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Keeps the strongest strikes (by rank) of one snapshot, in strike order, to fit `budget`. */
function trimStrikes(snapshot: Row, budget: number): { row: Row; kept: number; total: number } {
  const strikes = Array.isArray(snapshot['strikes']) ? (snapshot['strikes'] as Row[]) : [];
  const byRank = [...strikes].sort((a, b) => Number(a['rank']) - Number(b['rank']));
  let kept = strikes.length;
  while (kept > 1 && size({ ...snapshot, strikes: byRank.slice(0, kept) }) > budget) kept = Math.max(1, Math.floor(kept * 0.8));
  const keep = new Set(byRank.slice(0, kept));
  return { row: { ...snapshot, strikes: strikes.filter((s) => keep.has(s)) }, kept, total: strikes.length };
}

export function fitToBudget(data: unknown, budgetChars: number, nextCursor: string | null): Trim {
  if (size(data) <= budgetChars) return { data };
  let rows: unknown[] | undefined;
  let wrap: (rows: unknown[]) => unknown = (r) => r;
  if (Array.isArray(data)) rows = data;
  else if (isRow(data)) {
    // An object payload: trim its largest array.
    const largest = Object.entries(data)
      .filter(([, v]) => Array.isArray(v))
      .sort((a, b) => size(b[1]) - size(a[1]))[0];
    if (largest) {
      rows = largest[1] as unknown[];
      wrap = (r) => ({ ...data, [largest[0]]: r });
    }
  }
  if (!rows || rows.length === 0) return { data };
  const total = rows.length;
  const keep = fittingPrefix(rows, budgetChars);
  let kept = rows.slice(0, keep);
  let strikes: { kept: number; total: number } | undefined;
  const first = kept[0];
  if (keep === 1 && size(kept) > budgetChars && isRow(first) && Array.isArray(first['strikes'])) {
    const trimmed = trimStrikes(first, budgetChars);
    kept = [trimmed.row];
    strikes = { kept: trimmed.kept, total: trimmed.total };
  }
  const more =
    keep < total
      ? `Showing the first ${keep} of ${total} rows to fit the result budget. Ask again with limit=${keep}${nextCursor ? ' and follow meta.next_cursor' : ''}, a narrower range, or fields=[...] to see the rest.`
      : `Showing the ${strikes?.kept ?? 0} strongest of ${strikes?.total ?? 0} strikes to fit the result budget.`;
  return {
    data: wrap(kept),
    trimmed: {
      rows_returned: keep,
      rows_total: total,
      ...(strikes ? { strikes_returned: strikes.kept, strikes_total: strikes.total } : {}),
      how_to_get_more: more,
    },
  };
}

export function successResult(result: ApiResult, options: ShapeOptions): CallToolResult {
  const data = options.fields && options.fields.length > 0 ? project(result.data, options.fields).data : result.data;
  const meta: ResultMeta = { ...result.meta, ...(options.simulated ? { simulated: true } : {}) };
  const metaSize = size(meta) + 300;
  const fitted = fitToBudget(data, Math.max(1000, options.budgetTokens * CHARS_PER_TOKEN - metaSize), meta.next_cursor ?? null);
  const structured = { data: fitted.data, meta: fitted.trimmed ? { ...meta, truncated: true, trimmed: fitted.trimmed } : meta };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}
