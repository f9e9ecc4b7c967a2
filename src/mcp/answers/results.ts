/**
 * Successful results: `{ data, meta }` as structuredContent (complete on its own, since
 * some hosts show the model nothing else) and the same JSON, compact, as text. Every
 * result fits MARKET_DATA_RESULT_TOKENS counted in o200k tokens. A page over the budget
 * is cut to its first rows, and the next cursor continues right after the last row shown.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { ApiResult } from '../../api/client.js';
import { resultMetaSchema, rowsLeftOut, type ResultMeta } from '../../api/result-meta.js';
import { jsonMayBeLongerThan } from './json-length.js';
import { rowsPlace, type RowsPlace } from '../../api/payload-parts.js';
import { encodePageCursor, pageRepeats, positionOf, visitedThrough, type Paging } from '../arguments/cursor.js';
import { PAGING_REPEATED } from '../../api/next-page.js';
import { estimateTokens, textFits } from './tokens.js';
import { fitRows, squeeze, type ShapingWork } from './trimming.js';

/** live: fetched now; cache: repeated by this server; degraded: an older value served by the API. */
export const DATA_SOURCES = ['live', 'cache', 'degraded'] as const;

/** The metadata a tool result carries, as its output schema declares it. */
export const toolMetaSchema = resultMetaSchema
  .omit({ content_cut: true, paging: true, next_page: true, end_unknown: true, out_of_reach: true })
  .extend({
    next_cursor: z.string().optional(),
    truncated: z.boolean(),
    has_more: z.boolean().optional(),
    as_of: z.string().optional(),
    covers: z.string().optional(),
    data_source: z.enum(DATA_SOURCES).optional(),
    /** Demo mode: the data comes from the built-in simulator. */
    simulated: z.boolean().optional(),
    trimmed: z
      .object({ rows_returned: z.number(), rows_left: z.number(), strikes_returned: z.number().optional(), how_to_get_more: z.string() })
      .optional(),
    /** The API holds rows past the limit asked (its `_meta.truncated` without a cursor): how to reach them. */
    more_rows: z.string().optional(),
    /** Upstream requests this answer spent, each a unit of quota (0 from the cache). */
    units: z.number().optional(),
    /** With has_more: what remains in the direction read. */
    remaining: z.string().optional(),
  });

export type ToolMeta = z.infer<typeof toolMetaSchema>;

/**
 * What an output schema declares of the meta: the fields with a meaning to read (the
 * server instructions explain them once); the others pass as additional properties.
 */
export const advertisedMetaSchema = z.looseObject({
  truncated: z.boolean(),
  has_more: z.boolean().optional(),
  next_cursor: z.string().optional(),
  as_of: z.string().optional(),
  covers: z.string().optional(),
  data_source: z.enum(DATA_SOURCES).optional(),
});
type Row = Record<string, unknown>;

export interface ShapeOptions {
  budgetTokens: number;
  fields?: readonly string[] | undefined;
  simulated: boolean;
  paging?: Paging | undefined;
  /** The session, window or range asked for, in words. */
  covers?: string | undefined;
  /** Parameters of this tool that narrow an answer, named in trimming advice. */
  narrowing?: readonly string[] | undefined;
  /** Parameters the call set (given, or carried by its cursor): advice does not suggest them again. */
  used?: readonly string[] | undefined;
  /** The `limit` the call sent, when the tool takes one. */
  limit?: number | undefined;
  /** The largest `limit` the tool accepts, when it takes one. */
  limitMax?: number | undefined;
  /** Upstream requests the answer spent, when it read more than one page (default: 1, or 0 from the cache). */
  units?: number | undefined;
  /** What the API left unread, when the caller knows better than the generic advice (a time window past the rows read). */
  moreRows?: string | undefined;
  /** False where the API cut its list before the limit asked (applied here): a larger limit would read no further. */
  limitReadsFurther?: boolean | undefined;
  /** Whether the tool takes a `ticker`: advice on following a cursor names it only then. */
  takesTicker?: boolean | undefined;
  now?: number | undefined;
  /** Filled with what trimming cost, when given. */
  work?: ShapingWork | undefined;
  /**
   * At most this many rows of the page: the `limit` the call sent, for one upstream page. An
   * upstream may send more than it was asked for; the rows past it are left for the cursor, as
   * rows past the budget are.
   */
  rowCap?: number | undefined;
  /** Where the rows were gathered here over several upstream pages (src/mcp/reading/local-pages.ts): the cursor after the first `kept`. */
  cursorAfter?: ((kept: number) => string | undefined) | undefined;
}

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Keeps only `fields` of each row, the rows found where payload-parts.ts finds them (a
 * `{period, rows}` keeps its period); a payload of one record is its own row. `available`
 * lists the fields the rows have.
 */
export function project(data: unknown, fields: readonly string[]): { data: unknown; available: string[] } {
  const place = rowsPlace(data);
  const rows = place ? place.rows : [data];
  const available = [...new Set(rows.filter(isRow).flatMap((r) => Object.keys(r)))];
  const pick = (row: unknown): unknown => (isRow(row) ? Object.fromEntries(fields.filter((f) => f in row).map((f) => [f, row[f]])) : row);
  return { data: place ? place.wrap(place.rows.map(pick)) : pick(data), available };
}

/**
 * The rows of a payload, found as every reader finds them (payload-parts.ts); a payload
 * holding no rows by that rule but several lists is cut, when over the budget, in its largest.
 */
function rowsOf(data: unknown): RowsPlace | undefined {
  const place = rowsPlace(data);
  if (place) return place;
  if (!isRow(data)) return undefined;
  const largest = Object.entries(data)
    .filter(([, v]) => Array.isArray(v))
    .sort((a, b) => JSON.stringify(b[1]).length - JSON.stringify(a[1]).length)[0];
  if (!largest) return undefined;
  return { rows: largest[1] as unknown[], wrap: (r) => ({ ...data, [largest[0]]: r }) };
}

/** What the model is told about the data's origin, in three words it can act on. */
export function dataSourceOf(meta: ResultMeta): ToolMeta['data_source'] {
  if (meta.cache_hit) return 'cache';
  const upstream = (meta.data_source ?? '').toLowerCase();
  if (upstream === 'live' || upstream === 'cache' || upstream === 'degraded') return upstream;
  return /stale|degrad|fallback|older/.test(upstream) ? 'degraded' : 'live';
}

/** What the client's meta holds that shaping decides anew. */
const DECIDED_HERE: ReadonlySet<string> = new Set([
  'next_cursor',
  'truncated',
  'content_cut',
  'data_source',
  'trimmed',
  'paging',
  'next_page',
  'end_unknown',
  'out_of_reach',
]);

/** Base metadata: the client's, with the as-of time, coverage and data source added. */
export function baseMeta(meta: ResultMeta, options: ShapeOptions): ToolMeta {
  // The cursor, truncation and source are decided here, not passed through from upstream.
  // Copied without them rather than copied and deleted from (a delete makes the copy slow to spread again).
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta)) if (!DECIDED_HERE.has(key)) rest[key] = value;
  const now = options.now ?? Date.now();
  const asOf = new Date(now - (meta.age_seconds + (meta.data_freshness_seconds ?? 0)) * 1000).toISOString();
  return {
    ...(rest as Omit<ResultMeta, 'truncated' | 'content_cut' | 'data_source' | 'paging' | 'next_page' | 'end_unknown' | 'out_of_reach'>),
    truncated: false,
    as_of: asOf,
    covers: options.covers ?? 'latest',
    data_source: dataSourceOf(meta),
    units: options.units ?? (meta.cache_hit ? 0 : 1),
    ...(options.simulated ? { simulated: true } : {}),
  };
}

/**
 * The API left rows out at the limit asked: say so, or the agent takes the rows shown for
 * all there are. A larger limit is offered only below the maximum, and only filters the
 * call did not already use are named (fields narrows columns, never rows). Said of what the
 * API sent, never of what this answer shows: an answer cut for the budget shows fewer.
 */
function moreRowsAdvice(options: ShapeOptions): string {
  const all = options.narrowing ?? [];
  const used = new Set(options.used ?? []);
  const filters = all.filter((p) => p !== 'limit' && p !== 'fields' && !used.has(p));
  const narrow = filters.length > 0 ? `narrow with ${filters.join(', ')}` : undefined;
  const asked = options.limit === undefined ? 'the limit' : `limit=${options.limit}`;
  if (!all.includes('limit')) return `The API holds more rows than it sent; ${narrow ?? 'narrow the request'}.`;
  const max = options.limitMax;
  if (max !== undefined && options.limit !== undefined && options.limit >= max) {
    return `The API holds more rows than it sent at ${asked}, and ${max} is the maximum limit; ${narrow ?? 'it holds more than one call can return'}.`;
  }
  if (options.limitReadsFurther === false)
    return `The API holds more rows than it sent, and gives no way past them: a larger limit reads no further; ${narrow ?? 'narrow the request'}.`;
  const larger = max === undefined ? 'ask a larger limit' : `ask a larger limit, up to ${max}`;
  return `The API holds more rows than it sent at ${asked}; ${larger}${narrow ? `, or ${narrow}` : ''}.`;
}

/** Parameters a call can still tighten once set (a lower limit, fewer fields or tickers, a shorter range, a higher minimum). */
function tightenable(name: string): boolean {
  return ['limit', 'fields', 'from', 'to', 'tickers'].includes(name) || /^(min|max)_/.test(name);
}

/**
 * How to get the rows this answer left out. `apiLeft`: the API holds rows past those it sent,
 * and more_rows says how to reach them; this then speaks only of the rows cut here for the
 * budget (`left` of them), and names no filter or limit more_rows already names.
 */
function advice(options: ShapeOptions, withCursor: boolean, apiLeft?: { left: number }): string {
  const used = new Set(options.used ?? []);
  const narrowing = (options.narrowing ?? [])
    .filter((p) => !used.has(p) || tightenable(p))
    .filter((p) => !apiLeft || p === 'fields')
    .join(', ');
  const enough = options.takesTicker ? 'ticker and cursor are enough' : 'cursor alone is enough';
  const rest = apiLeft ? `the other ${apiLeft.left} the API sent` : 'the rest';
  const follow = withCursor ? `Follow meta.next_cursor (${enough}) for ${rest}` : 'The rest was left out';
  return narrowing ? `${follow}; or narrow with ${narrowing}.` : `${follow}.`;
}

/** What an answer says when the API did not say whether rows follow its last page. */
export function unknownEndNotice(withCursor: boolean): string {
  return withCursor
    ? 'The API did not say whether more rows follow (no total, no flag): next_cursor reads the next page, which may be empty.'
    : 'The API did not say whether more rows follow and gave no way to ask for them: this may not be the whole list.';
}

function structured(data: unknown, meta: ToolMeta): { data: unknown; meta: ToolMeta } {
  return { data, meta };
}

/** `text`, when given, is `content`'s JSON already made (by shaping, which measured it). */
export function toolResult(content: { data: unknown; meta: ToolMeta }, text?: string): CallToolResult {
  return { content: [{ type: 'text', text: text ?? JSON.stringify(content) }], structuredContent: content };
}

/**
 * Rows whose JSON is at most this long are first measured as the whole answer, once: most
 * pages fit the budget as they are, and then that one text settles them and is the answer's
 * (a row at a time, a 10 kB page cost its rows' serialization twice, a cursor signed for the
 * overhead and a third serialization of the answer). A longer page is cut a row at a time.
 */
const WHOLE_PAGE_CHARS = 64 * 1024;

interface Shaped {
  content: { data: unknown; meta: ToolMeta };
  /** The content's JSON, when shaping made it. */
  text?: string | undefined;
}

/**
 * Shapes one upstream page: drops the rows earlier answers returned, keeps the longest
 * prefix that fits the budget, and mints the cursor that continues after it.
 */
export async function shapeResult(result: ApiResult, options: ShapeOptions): Promise<{ data: unknown; meta: ToolMeta }> {
  return (await shape(result, options)).content;
}

/** The page as the answer sees it: its rows after the cursor's skip and the limit, projected to the fields asked. */
interface PageView {
  /** The payload, projected unless its rows are projected one by one as trimming reads them. */
  projected: unknown;
  found: ReturnType<typeof rowsOf>;
  /** Rows from the cursor's position on; `rows` are those of them the limit keeps. */
  available: readonly unknown[];
  rows: readonly unknown[];
  /** Whether the limit left rows of the page for the cursor. */
  capped: boolean;
  /** A row as shown (projected when projection is lazy). */
  shown: (row: unknown) => unknown;
  lazy: boolean;
}

function pageView(result: ApiResult, options: ShapeOptions): PageView {
  const fields = options.fields && options.fields.length > 0 ? options.fields : undefined;
  // Rows of a bare array are projected one by one as trimming reads them: rows past the
  // budget are never copied.
  const lazy = fields !== undefined && Array.isArray(result.data);
  const projected = fields && !lazy ? project(result.data, fields).data : result.data;
  const skip = options.paging?.skip ?? 0;
  const found = rowsOf(projected);
  const available = found ? (skip > 0 ? found.rows.slice(skip) : found.rows) : [];
  const cap = options.rowCap;
  // The rows asked for; those past the limit stay in the page, for the cursor.
  const rows = cap !== undefined && cap > 0 && available.length > cap ? available.slice(0, cap) : available;
  return {
    projected,
    found,
    available,
    rows,
    capped: rows.length < available.length,
    shown: (row) => (lazy && fields ? project(row, fields).data : row),
    lazy,
  };
}

/** The answer keeping the first `kept` rows of the view: its cursor, has_more and what was trimmed, said. */
function answerKeeping(result: ApiResult, options: ShapeOptions, view: PageView): (kept: number) => { data: unknown; meta: ToolMeta } {
  const { paging, budgetTokens: budget } = options;
  const meta = baseMeta(result.meta, options);
  const skip = paging?.skip ?? 0;
  // A next page already read (the upstream's paging went round in a circle) is never followed again.
  const named = result.meta.next_page;
  const repeated = named !== undefined && paging !== undefined && pageRepeats(paging.visited, paging.upstreamPage, named);
  const upstreamNext = repeated ? undefined : named;
  // Rows the API left with no cursor to them; a page whose only cut is inside rows (a long text,
  // a row of 2,000 fields and more) says so in its notice and has nothing more to read.
  const contentCut = result.meta.content_cut === true;
  const leftByApi = rowsLeftOut(result.meta) && !upstreamNext;
  const { found, rows, available, capped } = view;
  const cursorAfter = (kept: number): string | undefined => {
    if (options.cursorAfter) return options.cursorAfter(kept);
    if (!paging?.base) return undefined;
    const before = paging.visited && paging.visited.length > 0 ? { v: [...paging.visited] } : {};
    if (kept < available.length) return encodePageCursor({ ...paging.base, ...positionOf(paging.upstreamPage), s: skip + kept, ...before });
    if (!upstreamNext) return undefined;
    const visited = visitedThrough(paging.visited, paging.upstreamPage);
    return encodePageCursor({ ...paging.base, ...positionOf(upstreamNext), s: 0, ...(visited ? { v: visited } : {}) });
  };
  return (kept) => {
    const next = cursorAfter(kept);
    const cut = kept < rows.length;
    const keptRows = rows.slice(0, kept);
    // Every row of the page shown, and the API did not say whether more follow: has_more is left out, never false.
    const unknownEnd = (result.meta.end_unknown === true || repeated) && !cut && !capped && !leftByApi;
    // Rows left out where the upstream never showed any exist (a time window read short of its start): said, not claimed.
    const leftUnknown = leftByApi && result.meta.end_unknown === true && !cut && !capped && next === undefined;
    // A read over several pages said the repeat already (local-pages.ts).
    const endNotice = repeated
      ? PAGING_REPEATED
      : (meta.notice ?? '').includes(PAGING_REPEATED)
        ? undefined
        : unknownEndNotice(next !== undefined);
    return structured(found ? found.wrap(view.lazy ? keptRows.map(view.shown) : keptRows) : view.projected, {
      ...meta,
      truncated: cut || leftByApi || contentCut,
      ...(unknownEnd
        ? { notice: [meta.notice, endNotice].filter(Boolean).join(' ') }
        : leftUnknown
          ? {}
          : { has_more: next !== undefined || ((cut || capped) && !paging?.base) || leftByApi }),
      ...(next ? { next_cursor: next } : {}),
      ...(leftByApi ? { more_rows: options.moreRows ?? result.meta.out_of_reach ?? moreRowsAdvice(options) } : {}),
      ...(cut
        ? {
            trimmed: {
              rows_returned: kept,
              rows_left: rows.length - kept,
              how_to_get_more: `Cut to ${kept} rows to fit the ${budget}-token result budget. ${advice(options, next !== undefined, leftByApi ? { left: rows.length - kept } : undefined)}`,
            },
          }
        : {}),
    });
  };
}

async function shape(result: ApiResult, options: ShapeOptions): Promise<Shaped> {
  const budget = options.budgetTokens;
  const view = pageView(result, options);
  const build = answerKeeping(result, options, view);
  const { found, rows } = view;
  if (found && rows.length > 0) {
    if (!jsonMayBeLongerThan(rows, WHOLE_PAGE_CHARS)) {
      const whole = build(rows.length);
      const text = JSON.stringify(whole);
      // The estimate is an upper bound of the o200k count, and a token covers at least a character.
      if (text.length <= budget || estimateTokens(text) <= budget) return { content: whole, text };
    }
    const kept = await fitRows(rows.length, (i) => view.shown(rows[i]), build, budget, options.work);
    if (kept > 0) return { content: build(kept) };
  } else {
    const whole = build(rows.length);
    const text = JSON.stringify(whole);
    if (await textFits(text, budget)) return { content: whole, text };
  }
  // One row, or a payload with no rows, over the budget: cut inside it.
  return { content: await cutInside(found && rows.length > 0 ? build(1) : build(rows.length), found !== undefined, rows.length, options) };
}

/** One row, or a payload with no rows, over the budget: its parts cut until it fits, or nothing and a notice. */
async function cutInside(
  single: { data: unknown; meta: ToolMeta },
  hasRows: boolean,
  rowCount: number,
  options: ShapeOptions,
): Promise<{ data: unknown; meta: ToolMeta }> {
  const budget = options.budgetTokens;
  const squeezeMeta: ToolMeta = {
    ...single.meta,
    truncated: true,
    trimmed: {
      rows_returned: hasRows ? Math.min(1, rowCount) : 0,
      rows_left: hasRows ? Math.max(0, rowCount - 1) : 0,
      how_to_get_more: `Parts of this answer were cut to fit the ${budget}-token result budget. ${advice(options, single.meta.next_cursor !== undefined)}`,
    },
  };
  const data = await squeeze(single.data, (v) => structured(v, squeezeMeta), budget);
  const answer = structured(data, squeezeMeta);
  if (await textFits(JSON.stringify(answer) ?? '', budget)) return answer;
  return structured(null, { ...squeezeMeta, notice: 'The answer was too large for the result budget.' });
}

export async function successResult(result: ApiResult, options: ShapeOptions): Promise<CallToolResult> {
  const shaped = await shape(result, options);
  return toolResult(shaped.content, shaped.text);
}

/** Any other result (api_status): the same budget, cut inside when over it. */
export async function withinBudget<T>(value: T, budgetTokens: number): Promise<T | { truncated: true; data: unknown }> {
  if (await textFits(JSON.stringify(value) ?? '', budgetTokens)) return value;
  const data = await squeeze(value, (v) => ({ truncated: true, data: v }), budgetTokens);
  return { truncated: true, data };
}
