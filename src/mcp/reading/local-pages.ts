/**
 * A tool's own parameters the upstream's document does not offer (`dataset.localParams`:
 * a page size, a ticker list, a side, a session or a range), applied here over the
 * upstream's pages, read with its own cursor. Nothing the document does not list is sent.
 *
 * Rows are collected page by page until the call's `limit` is met, the upstream has no
 * more, or MAX_PAGES pages were read (each a unit). The cursor handed back names the
 * upstream page and the row within it where the next answer starts, so following it from
 * any answer reads the whole set once: no row skipped, none repeated.
 */
import type { CallContext } from '../../api/call-context.js';
import type { ApiResult, MarketDataClient, ProgressEvent } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import { rowsIn, withRows } from '../../api/payload-parts.js';
import type { NextPage } from '../../api/next-page.js';
import { rowsLeftOut, type ResultMeta } from '../../api/result-meta.js';
import { validateAgentParam, type DatasetDefinition, type QueryValues } from '../../catalog/index.js';
import { pageSizeMaximum, upstreamRoles } from '../../catalog/param-roles.js';
import { encodePageCursor, positionOf, type Paging } from '../arguments/cursor.js';
import { printTimeOf, readBackTo, WINDOW_BUDGET, type RowFilter } from './row-filters.js';
import { windowNotReached } from './window-progress.js';
import { refusalError } from '../answers/tool-errors.js';

type Row = Record<string, unknown>;

/** Upstream pages one answer reads at most: each is a unit of the caller's quota. */
export const MAX_PAGES = 10;
/** Rows gathered when the tool takes no limit at all. */
const ROWS_WITHOUT_LIMIT = 100;
/** Page size asked where the upstream takes one and rows are filtered here: enough to choose from. */
const FILTER_PAGE_ROWS = 1000;

const ET_DATE = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' });
/** A row's date, by the fields public data APIs commonly use, first found wins. */
const DATE_FIELDS = [
  'session_date',
  'session_date_et',
  'date',
  'trade_date',
  'disclosed_on',
  'traded_on',
  'as_of',
  'executed_at',
  'timestamp',
];
const TICKER_FIELDS = ['ticker', 'symbol', 'underlying'];
const SIDE_FIELDS = ['side', 'transaction_type'];

function stringField(row: Row, names: readonly string[]): string | undefined {
  for (const name of names) if (typeof row[name] === 'string') return row[name];
  return undefined;
}

/** YYYY-MM-DD (ET) of a row: a date as is, a date-time in New York's calendar. */
function etDateOf(row: Row): string | undefined {
  const value = stringField(row, DATE_FIELDS);
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ET_DATE.format(new Date(ms));
}

export function readsLocally(dataset: DatasetDefinition): boolean {
  return (dataset.localParams?.length ?? 0) > 0;
}

/** The local parameters of a call, checked as every tool parameter is. */
export function localValues(dataset: DatasetDefinition, args: Readonly<Record<string, unknown>>): QueryValues {
  const values: Record<string, string | number> = {};
  for (const name of dataset.localParams ?? []) {
    const schema = dataset.shaping?.[name];
    if (!schema) continue;
    const checked = validateAgentParam(dataset, name, schema, args[name]);
    if (!checked.ok) throw refusalError(checked.refusal);
    if (typeof checked.value === 'string' || typeof checked.value === 'number') values[name] = checked.value;
  }
  const from = values['from'];
  const to = values['to'];
  if (typeof from === 'string' && typeof to === 'string' && from > to)
    throw refusalError({
      code: 'VALIDATION_ERROR',
      param: 'from',
      message: `"from" (${from}) is after "to" (${to}).`,
      hint: 'Swap the dates or widen the range.',
    });
  return values;
}

/** The row test of the local filters (the page size is not a filter); undefined when none is set. */
function localFilter(values: QueryValues): RowFilter | undefined {
  const checks: ((row: Row) => boolean)[] = [];
  const words: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (name === 'limit' || typeof value !== 'string') continue;
    words.push(`${name}=${value}`);
    if (name === 'tickers') {
      const wanted = new Set(value.split(','));
      checks.push((row) => wanted.has(stringField(row, TICKER_FIELDS) ?? ''));
    } else if (name === 'side') checks.push((row) => stringField(row, SIDE_FIELDS) === value);
    else if (name === 'session_date') checks.push((row) => etDateOf(row) === value);
    else if (name === 'from') checks.push((row) => (etDateOf(row) ?? '') >= value);
    else if (name === 'to') checks.push((row) => (etDateOf(row) ?? '9999') <= value);
  }
  if (checks.length === 0) return undefined;
  return { keep: (row) => checks.every((check) => check(row)), words: words.join(', ') };
}

/** The filters in words, each named once: a tool's own filter may repeat a local one. */
function filterWords(filters: readonly RowFilter[]): string {
  const words = filters.flatMap((f) => f.words.split(', '));
  return [...new Set(words)].join(', ');
}

export interface LocalRead {
  /** The rows gathered, as one answer: its meta the first page's, with the quota left after the last. */
  result: ApiResult;
  /** Our cursor to the row after the first `kept` rows, or undefined when nothing follows. */
  cursorAfter: (kept: number) => string | undefined;
  /** Upstream requests spent (cache hits cost nothing). */
  units: number;
  /**
   * The oldest date the rows read reach, when the read ended (the upstream's list, or the
   * pages one answer may read) before the session or range start asked: nothing before it was seen.
   */
  reachedBackTo?: string;
  /** What is left unread when the upstream cut its list with no cursor past the rows read. */
  moreRows?: string;
  /** The upstream cut its list before the limit was met, with no way past the cut: a larger limit reads no further. */
  cutBeforeLimit?: true;
  /** Drops the pages read from the cache: a bug of ours shaping them must not be served again. */
  forget: () => void;
}

export interface LocalReadDeps {
  client: MarketDataClient;
  /** The call the pages are read for: its caller, cancellation and cost go with each request. */
  call: CallContext;
  onProgress: ((event: ProgressEvent) => void) | undefined;
  /** How far a time window reads back in one answer (default WINDOW_BUDGET). */
  windowBudget?: { rows: number; pages: number };
}

interface Position {
  /** The upstream page (a token, URL, page number or offset); absent for the first. */
  at: NextPage | undefined;
  /** Row within that page. */
  s: number;
}

/**
 * Reads the upstream's pages from `paging`'s position. `query` holds what the upstream
 * offers (MCP-side names, its cursor excluded); `local` what is done here; `extra` a row
 * filter of the tool's own (src/mcp/reading/row-filters.ts).
 */
export async function readLocally(
  dataset: DatasetDefinition,
  ticker: string | undefined,
  query: QueryValues,
  local: QueryValues,
  paging: Paging,
  extra: RowFilter | undefined,
  deps: LocalReadDeps,
): Promise<LocalRead> {
  const answered: (NextPage | undefined)[] = [];
  const forget = (): void => {
    for (const at of answered) deps.client.forgetAt(dataset, ticker, sentQuery(dataset, query, local), at);
  };
  try {
    return { ...(await readPages(dataset, ticker, query, local, paging, extra, deps, answered)), forget };
  } catch (error) {
    // Pages that made a bug of ours throw are not kept: the same call asks the upstream anew.
    if (!(error instanceof ApiError)) forget();
    throw error;
  }
}

/** The query every page is read with (its position aside): a large page where rows are picked here from what the upstream sizes. */
function sentQuery(dataset: DatasetDefinition, query: QueryValues, local: QueryValues, extra?: RowFilter): QueryValues {
  const roles = upstreamRoles(dataset);
  const filtered = localFilter(local) !== undefined || extra !== undefined;
  const sent: Record<string, string | number> = { ...query };
  if (roles.pageSize && filtered) sent[roles.pageSize] = Math.min(pageSizeMaximum(dataset) ?? FILTER_PAGE_ROWS, FILTER_PAGE_ROWS);
  return sent;
}

/** The read itself; `answered` collects each page's position as it is answered. */
async function readPages(
  dataset: DatasetDefinition,
  ticker: string | undefined,
  query: QueryValues,
  local: QueryValues,
  paging: Paging,
  extra: RowFilter | undefined,
  deps: LocalReadDeps,
  answered: (NextPage | undefined)[],
): Promise<Omit<LocalRead, 'forget'>> {
  const roles = upstreamRoles(dataset);
  const own = localFilter(local);
  const filters = [own, extra].filter((f): f is RowFilter => f !== undefined);
  const keep = (row: unknown): boolean =>
    filters.length === 0 || (typeof row === 'object' && row !== null && filters.every((f) => f.keep(row as Row)));
  const upstreamLimit = roles.pageSize ? query[roles.pageSize] : undefined;
  const limit = local['limit'] ?? upstreamLimit;
  const wanted = typeof limit === 'number' ? limit : ROWS_WITHOUT_LIMIT;
  const sent = sentQuery(dataset, query, local, extra);

  const gathered: { row: unknown; at: Position }[] = [];
  let first: ResultMeta | undefined;
  /** The first page's payload: the wrapper and context the gathered rows are answered in. */
  let firstData: unknown;
  let last: ResultMeta | undefined;
  let units = 0;
  let read = 0;
  let whole = true;
  let cutByApi = false;
  /** Where the next answer starts once every gathered row is shown; undefined: nothing follows. */
  let resume: Position | undefined;
  let page: Position = { at: paging.upstreamPage, s: paging.skip };
  /** Whether the API said nothing of what follows the last page read (next-page.ts): the end is then not claimed. */
  let endUnknown = false;
  /** The oldest date a row may have, from the session or range asked. */
  const earliest =
    typeof local['session_date'] === 'string' ? local['session_date'] : typeof local['from'] === 'string' ? local['from'] : undefined;
  let newestFirst = true;
  let latest: string | undefined;
  /** A time window's start (dark-pool prints): passed once a print before it is read, while prints come newest first. */
  const beforeWindow = extra?.before;
  let printsNewestFirst = true;
  let latestPrint: number | undefined;
  let oldestRead: unknown;
  /** The oldest date among the rows read, and whether the read stopped because it passed `earliest`. */
  let oldestDate: string | undefined;
  let passedEarliest = false;
  let pageBound = false;
  // A time window reads back up to a number of prints, whatever the upstream's page size (README).
  const timed = extra?.fromTime !== undefined || extra?.toTime !== undefined;
  const windowBudget = deps.windowBudget ?? WINDOW_BUDGET;
  const maxPages = timed ? windowBudget.pages : MAX_PAGES;
  let pagesRead = 0;
  for (let index = 0; index < maxPages; index += 1) {
    endUnknown = false;
    const result = await deps.client.datasetAt(dataset, ticker, sent, page.at, { call: deps.call, onProgress: deps.onProgress });
    answered.push(page.at);
    pagesRead += 1;
    if (first === undefined) [first, firstData] = [result.meta, result.data];
    last = result.meta;
    if (!result.meta.cache_hit) units += 1;
    const rows = rowsIn(result.data);
    // Not a list: nothing to filter or page here; the answer is the upstream's, whole.
    if (!rows) return { result, cursorAfter: () => undefined, units };
    let stopped = false;
    for (let at = page.s; at < rows.length; at += 1) {
      if (gathered.length >= wanted) {
        resume = { at: page.at, s: at };
        stopped = true;
        break;
      }
      read += 1;
      const row = rows[at];
      oldestRead = row;
      if (beforeWindow && typeof row === 'object' && row !== null) {
        const printed = printTimeOf(row as Row);
        printsNewestFirst &&= printed === undefined || latestPrint === undefined || printed <= latestPrint;
        latestPrint = printed ?? latestPrint;
        // The rest lie further back still: nothing of the window is left, and no page past it is read.
        if (printsNewestFirst && beforeWindow(row as Row)) {
          passedEarliest = true;
          stopped = true;
          whole = true;
          break;
        }
      }
      // Rows newest first so far, and this one older than the session or range: none older can match.
      const date = earliest && typeof row === 'object' && row !== null ? etDateOf(row as Row) : undefined;
      if (date !== undefined && (oldestDate === undefined || date < oldestDate)) oldestDate = date;
      if (date !== undefined) {
        newestFirst &&= latest === undefined || date <= latest;
        latest = date;
        if (newestFirst && earliest !== undefined && date < earliest) {
          passedEarliest = true;
          stopped = true;
          whole = true;
          break;
        }
      }
      if (keep(row)) gathered.push({ row, at: { at: page.at, s: at } });
    }
    if (stopped) break;
    // A next page the document gives no way to ask for is out of reach: the upstream cut here (client.ts).
    const next = result.meta.next_page;
    endUnknown = result.meta.end_unknown === true;
    if (!next) {
      whole = !rowsLeftOut(result.meta);
      cutByApi = !whole;
      break;
    }
    page = { at: next, s: 0 };
    // Enough rows, or the pages one answer may read are spent: the next answer starts there.
    if (gathered.length >= wanted || index === maxPages - 1 || (timed && read >= windowBudget.rows)) {
      pageBound = gathered.length < wanted;
      resume = page;
      break;
    }
  }

  const meta = first ?? { operation_id: dataset.operationId, cache_hit: false, age_seconds: 0, truncated: false };
  // The upstream cut its list and offers no way past it: neither a larger limit (the pages
  // read were its largest) nor calling again reaches older rows.
  const moreRows =
    cutByApi && filters.length > 0 && gathered.length < wanted
      ? `The API returned ${read} rows and no cursor to older ones, of which ${gathered.length} matched ${filterWords(filters)}: older rows cannot be read through this API, and a larger limit reads no further.`
      : undefined;
  // The read ended short of the session or range start (not because the limit was met): say how far back it reached.
  const listEnded = resume === undefined && !passedEarliest && whole;
  const reachedBackTo =
    earliest !== undefined && oldestDate !== undefined && oldestDate > earliest && !passedEarliest && (listEnded || pageBound)
      ? oldestDate
      : undefined;
  const short =
    reachedBackTo === undefined
      ? undefined
      : pageBound
        ? `The ${maxPages} pages one answer may read reach back only to ${reachedBackTo}: follow next_cursor to read further back toward ${earliest}.`
        : `The upstream's list reaches back only to ${reachedBackTo}: rows before it could not be read through this API.`;
  const matched =
    filters.length > 0
      ? `${gathered.length} of ${read} rows read${extra ? readBackTo(extra, oldestRead === undefined ? [] : [oldestRead]) : ''} matched ${filterWords(filters)} (filtered by this server).`
      : undefined;
  // Read to the budget and still short of the window's start: the rows shown are not all (often none) of it.
  const notReached =
    timed && extra && pageBound && !passedEarliest ? windowNotReached(extra, oldestRead, pagesRead, gathered.length) : undefined;
  const notice = [matched, short, notReached].filter(Boolean).join(' ') || undefined;
  const merged: ResultMeta = {
    ...meta,
    cache_hit: units === 0,
    truncated: !whole,
    ...(notice ? { notice: [notice, meta.notice].filter(Boolean).join(' ') } : {}),
    // The quota and rate left after the last request, not the first.
    ...(last?.quota_remaining !== undefined ? { quota_remaining: last.quota_remaining } : {}),
    ...(last?.quota_remaining_pct !== undefined ? { quota_remaining_pct: last.quota_remaining_pct } : {}),
    ...(last?.rate_limit_remaining !== undefined ? { rate_limit_remaining: last.rate_limit_remaining } : {}),
  };
  delete merged.next_page;
  delete merged.end_unknown;
  // The read stopped at the start of a page the API did not say exists, or at a list whose end it did not say.
  if (endUnknown && (resume === undefined ? listEnded : resume.s === 0 && resume.at === page.at)) merged.end_unknown = true;
  // `truncated` here speaks of rows.
  delete merged.content_cut;
  const base = paging.base;
  const cursorAt = (position: Position | undefined): string | undefined =>
    position && base ? encodePageCursor({ ...base, ...positionOf(position.at), s: position.s }) : undefined;
  return {
    result: {
      data: withRows(
        firstData,
        gathered.map((g) => g.row),
      ),
      meta: merged,
    },
    cursorAfter: (kept) => cursorAt(kept < gathered.length ? gathered[kept]?.at : resume),
    units,
    ...(reachedBackTo !== undefined ? { reachedBackTo } : {}),
    ...(moreRows !== undefined ? { moreRows } : {}),
    ...(cutByApi && gathered.length < wanted ? { cutBeforeLimit: true as const } : {}),
  };
}
