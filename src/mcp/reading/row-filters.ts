/**
 * MCP-side row filters (src/catalog/row-filters.ts): dark-pool prints by size, notional
 * and time, lit prints by ticker, open-interest changes by direction. Applied over the
 * upstream's pages by the local reader (src/mcp/reading/local-pages.ts), in every dialect, so
 * nothing unknown to the upstream's document is sent and `limit` counts the rows that
 * match, as it does for a filter the upstream applies. The notice says how many matched.
 */
import type { ApiResult } from '../../api/client.js';
import type { NextPage } from '../../api/next-page.js';
import { numberOf } from '../../api/paging-evidence.js';
import { rowsLeftOut } from '../../api/result-meta.js';
import { validateAgentParam, type DatasetDefinition } from '../../catalog/index.js';
import { refusalError } from '../answers/tool-errors.js';
import { tickerOf } from './field-roles.js';

type Row = Record<string, unknown>;

const FILTER_NAMES = ['min_size', 'min_notional_usd', 'from_time', 'to_time', 'tickers', 'direction'] as const;

export interface RowFilter {
  keep: (row: Row) => boolean;
  /** The filters in words, for the notice. */
  words: string;
  /** The time window asked (ET HH:MM), when the call set one: whether the rows read cover it. */
  fromTime?: string | undefined;
  toTime?: string | undefined;
  /**
   * With a window start: whether a print lies before the window. Prints come newest first,
   * so once one does, none after it can match and a reader of pages stops there.
   */
  before?: ((row: Row) => boolean) | undefined;
  /** The tickers a `tickers=` filter keeps: those with no row kept are named (unmatched-tickers.ts). */
  tickers?: readonly string[] | undefined;
}

const ET_CLOCK = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/**
 * The first of `names` the row has as a number: a JSON number or numeric text, as an
 * upstream that writes its numbers as strings (`"size": "5000"`) sends them; read as
 * numbers only, such an upstream's prints all failed a size or notional filter.
 */
function numberField(row: Row, names: readonly string[]): number | undefined {
  for (const name of names) {
    const value = numberOf(row[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

function stringField(row: Row, names: readonly string[]): string | undefined {
  for (const name of names) if (typeof row[name] === 'string') return row[name];
  return undefined;
}

/** The instant of a row's print (ms), when it has one. */
export function printTimeOf(row: Row): number | undefined {
  const at = stringField(row, ['executed_at', 'time', 'timestamp']);
  const ms = at ? Date.parse(at) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** HH:MM in ET of a row's print time. */
function etClockOf(row: Row): string | undefined {
  const ms = printTimeOf(row);
  return ms === undefined ? undefined : ET_CLOCK.format(new Date(ms));
}

/** The row filters of a call, checked; undefined when it sets none. Only MCP-side names count (not an upstream's own `tickers`). */
export function rowFilterOf(dataset: DatasetDefinition, args: Readonly<Record<string, unknown>>): RowFilter | undefined {
  const checks: ((row: Row) => boolean)[] = [];
  const words: string[] = [];
  const window: { fromTime?: string; toTime?: string } = {};
  let tickers: readonly string[] | undefined;
  for (const name of FILTER_NAMES) {
    const schema = dataset.shaping?.[name];
    const raw = args[name];
    if (!schema || Object.hasOwn(dataset.query, name) || raw === undefined || raw === null) continue;
    const checked = validateAgentParam(dataset, name, schema, raw);
    if (!checked.ok) throw refusalError(checked.refusal);
    const value = checked.value;
    words.push(`${name}=${String(value)}`);
    if (name === 'min_size' && typeof value === 'number')
      checks.push((row) => (numberField(row, ['size', 'shares', 'quantity']) ?? 0) >= value);
    if (name === 'min_notional_usd' && typeof value === 'number')
      checks.push((row) => (numberField(row, ['notional_usd', 'notional', 'value_usd']) ?? 0) >= value);
    if (name === 'from_time' && typeof value === 'string') {
      window.fromTime = value;
      checks.push((row) => (etClockOf(row) ?? '') >= value);
    }
    if (name === 'to_time' && typeof value === 'string') {
      window.toTime = value;
      checks.push((row) => (etClockOf(row) ?? '99:99') <= value);
    }
    if (name === 'tickers' && typeof value === 'string') {
      tickers = value.split(',');
      const wanted = new Set(tickers);
      checks.push((row) => wanted.has(tickerOf(row) ?? ''));
    }
    if (name === 'direction' && typeof value === 'string') {
      const sign = value === 'increase' ? 1 : -1;
      checks.push((row) => sign * (numberField(row, ['oi_change', 'change', 'open_interest_change']) ?? 0) > 0);
    }
  }
  if (checks.length === 0) return undefined;
  // An inverted window matches no print: refused before any request, as `from` after `to` is.
  if (window.fromTime !== undefined && window.toTime !== undefined && window.fromTime > window.toTime)
    throw refusalError({
      code: 'VALIDATION_ERROR',
      param: 'from_time',
      message: `"from_time" (${window.fromTime}) is after "to_time" (${window.toTime}).`,
      hint: 'Swap the times: from_time is the start of the window, to_time its end (ET, HH:MM).',
    });
  const start = window.fromTime;
  // Strictly earlier: a print of from_time's own minute may lie just before one already read.
  const before = start === undefined ? undefined : (row: Row): boolean => (etClockOf(row) ?? '99:99') < start;
  return { keep: (row) => checks.every((check) => check(row)), words: words.join(', '), ...window, before, tickers };
}

/** ` (back to HH:MM ET)` for a time window, from the prints read (newest first): how far back they reach. */
export function readBackTo(filter: RowFilter, rows: readonly unknown[]): string {
  if (filter.fromTime === undefined && filter.toTime === undefined) return '';
  const oldest = oldestClock(rows);
  return oldest ? ` (back to ${oldest} ET)` : '';
}

/**
 * Rows asked for at most when a filter picks among them: the largest page a live document
 * lists may be over the upstream's response-size ceiling, which no document states, and
 * would be refused whole.
 */
const FILTER_PAGE_ROWS = 1000;

/** How far back a page was read, against the limit that read it. */
export interface PageRead {
  /** The `limit` sent upstream, when the dataset takes one. */
  limit: number | undefined;
  /** The largest `limit` the dataset accepts. */
  limitMax: number | undefined;
}

export interface FilteredResult {
  result: ApiResult;
  /** What the upstream left unread, in words, when the window asked reaches past it. */
  moreRows?: string | undefined;
}

/**
 * The rows that pass, and a notice saying how many of how many. Prints come newest first
 * and the upstream cuts at the limit, so a time window may reach back before the oldest
 * print read: covered, the answer is complete (the prints left unread lie before the
 * window); not covered, the answer says which part of the window was not read and whether
 * a larger limit reaches it. The upstream's own cursor, when it sends one, is followed by
 * the paging cursor as for any tool.
 */
export function applyRowFilter(result: ApiResult, filter: RowFilter, read: PageRead): FilteredResult {
  if (!Array.isArray(result.data)) return { result };
  const rows = (result.data as unknown[]).filter((row): row is Row => typeof row === 'object' && row !== null);
  const kept = rows.filter((row) => filter.keep(row));
  const oldest = oldestClock(rows);
  const timed = filter.fromTime !== undefined || filter.toTime !== undefined;
  const cutByApi = rowsLeftOut(result.meta) && !result.meta.next_page;
  const span = oldest ? ` (back to ${oldest} ET)` : '';
  const notice = `${kept.length} of ${rows.length} rows read${timed ? span : ''} matched ${filter.words} (filtered by this server).`;
  const noticed = (meta: ApiResult['meta']): ApiResult => ({
    ...result,
    data: kept,
    meta: { ...meta, notice: [notice, meta.notice].filter(Boolean).join(' ') },
  });
  if (timed && oldest !== undefined && reachesBack(oldest, filter)) {
    // The prints not read lie before the window: nothing of it is left, whatever the upstream holds.
    const meta = { ...result.meta, truncated: false };
    delete meta.next_page;
    delete meta.end_unknown;
    return { result: noticed(meta) };
  }
  // The upstream applied the limit to the rows it sent, before this filter: say so, or "ask a larger limit" reads as the whole story.
  if (!timed && rowsLeftOut(result.meta) && read.limit !== undefined && kept.length < rows.length)
    return { result: noticed(result.meta), moreRows: limitBeforeFilter(filter, read, kept.length, rows.length) };
  if (!timed || oldest === undefined || result.meta.next_page) return { result: noticed(result.meta) };
  if (cutByApi) return { result: noticed(result.meta), moreRows: unreadWindow(filter, oldest, read) };
  // The list ended before the window's start: its prints may lie before the oldest one sent, never claimed absent.
  const uncovered = windowNotCovered(filter, oldest);
  return uncovered === undefined
    ? { result: noticed(result.meta) }
    : { result: noticed({ ...result.meta, truncated: true, end_unknown: true }), moreRows: uncovered };
}

/**
 * Advice when the upstream cut the rows before the filter chose among them. `limit` counts
 * the rows read, not the rows kept (the upstream applies it; this server filters after), so
 * the advice never offers what the call just did: without a limit, or at the largest page
 * the upstream's size ceiling lets one call read, only a cursor reaches further.
 */
function limitBeforeFilter(filter: RowFilter, read: PageRead, kept: number, rows: number): string {
  const counted = `limit=${String(read.limit)} counts the rows read, before the filter ${filter.words}: ${kept} of ${rows} matched.`;
  const ceiling = Math.min(read.limitMax ?? FILTER_PAGE_ROWS, FILTER_PAGE_ROWS);
  if (read.limit !== undefined && read.limit < ceiling)
    return `${counted} More matching rows may follow: ask without limit (this server then reads ${ceiling} rows, the most one call reads within the API's response-size ceiling, and filters them), or follow next_cursor where one is given.`;
  return `${counted} These ${rows} rows are the most one call reads within the API's response-size ceiling; follow next_cursor where one is given, otherwise older rows cannot be read by this tool.`;
}

/**
 * How far one answer reads back for a time window: 2,000 prints (more than a busy name's
 * session), in at most 20 pages. Pages are a unit each, however large: an upstream that
 * pages at a small fixed size (50 prints) reaches a session's open in one answer, where a
 * budget in pages alone (4) left an early window to several answers of no rows. The units
 * are those the agent would spend following the cursor; the calls are not.
 */
export const WINDOW_BUDGET = { rows: 2000, pages: 20 } as const;

/** Whether prints read back to `oldest` cover the window (a print of from_time's own minute may lie just before: strictly earlier). */
function reachesBack(oldest: string, filter: RowFilter): boolean {
  return filter.fromTime !== undefined && oldest < filter.fromTime;
}

/**
 * A time window the prints read stop short of, though the read has ended (the upstream's list
 * ended, was cut, or said nothing of what follows): the part of the window not read, in words;
 * undefined when a print read lies at or before its start. Prints come newest first and a
 * "most recent prints" list ends where the upstream stops serving, not where the session
 * began, so an answer of no prints there says what was not reached rather than "none".
 * Without from_time the window's start is the open, which no print tells: only a window
 * wholly before the oldest print is known not read.
 */
export function windowNotCovered(filter: RowFilter, oldest: string | undefined): string | undefined {
  if (oldest === undefined) return undefined;
  const none = filter.toTime !== undefined && oldest > filter.toTime;
  const partly = filter.fromTime !== undefined && oldest > filter.fromTime;
  if (!none && !partly) return undefined;
  const window = `${filter.fromTime ?? 'the open'} to ${filter.toTime ?? 'the close'} ET`;
  const reach = `the prints the API returned reach back only to ${oldest} ET and it gave no way to older ones, so whether the window holds prints before that is not known: older prints cannot be read through this API`;
  return none ? `None of the window ${window} was read: ${reach}.` : `The window ${window} was read only from ${oldest} ET on: ${reach}.`;
}

/** HH:MM ET of the oldest print among `rows`. */
export function oldestClock(rows: readonly unknown[]): string | undefined {
  const clocks = rows.filter((row): row is Row => typeof row === 'object' && row !== null).map(etClockOf);
  return clocks
    .filter((c): c is string => c !== undefined)
    .reduce<string | undefined>((a, b) => (a === undefined || b < a ? b : a), undefined);
}

/**
 * A time window the first page does not reach back to, read on with the upstream's own
 * next page (prints are newest first: a token, a URL, a page or an offset, as the answers
 * and the document say) until the window is covered, the upstream has no more, or
 * WINDOW_BUDGET was read; the rows of every page, the last page's next page, and the units
 * the pages cost (a cached page costs none).
 */
export async function readWindow(
  first: ApiResult,
  filter: RowFilter | undefined,
  nextPage: (page: NextPage) => Promise<ApiResult>,
): Promise<{ result: ApiResult; units: number; pages: number }> {
  let units = first.meta.cache_hit ? 0 : 1;
  const timed = filter !== undefined && (filter.fromTime !== undefined || filter.toTime !== undefined);
  if (!timed || !Array.isArray(first.data)) return { result: first, units, pages: 1 };
  let rows: unknown[] = first.data;
  let meta = first.meta;
  let pages = 1;
  for (; pages < WINDOW_BUDGET.pages && rows.length < WINDOW_BUDGET.rows && meta.next_page; pages += 1) {
    const oldest = oldestClock(rows);
    if (oldest !== undefined && reachesBack(oldest, filter)) break;
    const page = await nextPage(meta.next_page);
    if (!Array.isArray(page.data)) break;
    rows = [...rows, ...(page.data as unknown[])];
    units += page.meta.cache_hit ? 0 : 1;
    // The first answer's id and freshness; the last page's next page, truncation and end.
    meta = { ...first.meta, truncated: page.meta.truncated, cache_hit: first.meta.cache_hit && page.meta.cache_hit };
    delete meta.next_page;
    delete meta.end_unknown;
    if (page.meta.next_page) meta.next_page = page.meta.next_page;
    if (page.meta.end_unknown === true) meta.end_unknown = true;
    // The last page's truncation, and what it was.
    if (page.meta.content_cut === true) meta.content_cut = true;
    else delete meta.content_cut;
  }
  return { result: { ...first, data: rows, meta }, units, pages };
}

function unreadWindow(filter: RowFilter, oldest: string, read: PageRead): string {
  const window = `${filter.fromTime ?? 'the open'} to ${filter.toTime ?? 'the close'} ET`;
  const { limit, limitMax } = read;
  if (limit !== undefined && limitMax !== undefined && limit < limitMax)
    return `Prints before ${oldest} ET were not read, and the window asked is ${window}; ask a larger limit, up to ${limitMax}, to read further back.`;
  const how = `the newest ${limit ?? 'prints'}${limit === undefined ? '' : ' prints'}, the most one call returns, reach back only to ${oldest} ET and this API offers no cursor to read earlier prints of a session`;
  if (filter.toTime !== undefined && filter.toTime < oldest) return `None of the window ${window} was read: ${how}.`;
  return `The window ${window} was read only from ${oldest} ET on: ${how}.`;
}
