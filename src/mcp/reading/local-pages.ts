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
import type { ApiResult, DatasetPage, MarketDataClient, ProgressEvent } from '../../api/client.js';
import { withValues, type DatasetQuery } from '../../api/dataset-query.js';
import { ApiError } from '../../api/errors.js';
import { rowsPlace } from '../../api/payload-parts.js';
import { PAGING_REPEATED, type NextPage } from '../../api/next-page.js';
import { rowsLeftOut, type ResultMeta } from '../../api/result-meta.js';
import type { DatasetDefinition, QueryValues } from '../../catalog/index.js';
import { encodePageCursor, pageRepeats, positionOf, visitedThrough, type Paging } from '../arguments/cursor.js';
import { oldestClock, readBackTo, windowNotCovered, WINDOW_BUDGET, type RowFilter } from './row-filters.js';
import { BackStop, filterWords, localFilter } from './local-filters.js';
import { windowNotReached } from './window-progress.js';

type Row = Record<string, unknown>;

/** Upstream pages one answer reads at most: each is a unit of the caller's quota. */
export const MAX_PAGES = 10;
/** Rows gathered when the tool takes no limit at all. */
const ROWS_WITHOUT_LIMIT = 100;
/** Page size asked where the upstream takes one and rows are filtered here: enough to choose from. */
const FILTER_PAGE_ROWS = 1000;

export function readsLocally(dataset: DatasetDefinition): boolean {
  return (dataset.localParams?.length ?? 0) > 0;
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
  /** Milliseconds the first page read stays in this process's cache (0: none was read). */
  cachedForMs: () => number;
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
  /** Keys of the upstream pages read before it (cursor.ts): a page named again is not followed. */
  v?: readonly string[] | undefined;
}

/**
 * Reads the upstream's pages from `paging`'s position. `query` holds what the upstream
 * offers (MCP-side names, its cursor excluded); `local` what is done here; `extra` a row
 * filter of the tool's own (src/mcp/reading/row-filters.ts).
 */
export async function readLocally(
  query: DatasetQuery,
  local: QueryValues,
  paging: Paging,
  extra: RowFilter | undefined,
  deps: LocalReadDeps,
): Promise<LocalRead> {
  const answered: DatasetPage[] = [];
  const forget = (): void => {
    for (const page of answered) deps.client.forget(page);
  };
  const cachedForMs = (): number => (answered[0] ? deps.client.cachedForMs(answered[0]) : 0);
  try {
    return { ...(await readPages(query, local, paging, extra, deps, answered)), forget, cachedForMs };
  } catch (error) {
    // Pages that made a bug of ours throw are not kept: the same call asks the upstream anew.
    if (!(error instanceof ApiError)) forget();
    throw error;
  }
}

/** The query every page is read with (its position aside): a large page where rows are picked here from what the upstream sizes. */
function sentQuery(query: DatasetQuery, local: QueryValues, extra: RowFilter | undefined): DatasetQuery {
  const { roles } = query;
  const filtered = localFilter(local) !== undefined || extra !== undefined;
  if (!roles.pageSize || !filtered) return query;
  const size = Math.min(query.largestPage ?? FILTER_PAGE_ROWS, FILTER_PAGE_ROWS);
  return withValues(query, { ...query.values, [roles.pageSize]: size });
}

/** What a read looks for, fixed before its first page. */
interface ReadPlan {
  filters: readonly RowFilter[];
  keep: (row: unknown) => boolean;
  /** Rows the answer gathers at most. */
  wanted: number;
  /** The query every page is read with. */
  sent: DatasetQuery;
  /** The oldest date a row may have, from the session or range asked. */
  earliest: string | undefined;
  /** Whether a time window is read (dark-pool prints): it reads back a budget of rows and pages, whatever the page size (README). */
  timed: boolean;
  maxPages: number;
  maxRows: number;
}

function readPlan(query: DatasetQuery, local: QueryValues, extra: RowFilter | undefined, deps: LocalReadDeps): ReadPlan {
  const { roles } = query;
  const filters = [localFilter(local), extra].filter((f): f is RowFilter => f !== undefined);
  const limit = local['limit'] ?? (roles.pageSize ? query.values[roles.pageSize] : undefined);
  const timed = extra?.fromTime !== undefined || extra?.toTime !== undefined;
  const budget = deps.windowBudget ?? WINDOW_BUDGET;
  return {
    filters,
    keep: (row) => filters.length === 0 || (typeof row === 'object' && row !== null && filters.every((f) => f.keep(row as Row))),
    wanted: typeof limit === 'number' ? limit : ROWS_WITHOUT_LIMIT,
    sent: sentQuery(query, local, extra),
    earliest:
      typeof local['session_date'] === 'string' ? local['session_date'] : typeof local['from'] === 'string' ? local['from'] : undefined,
    timed,
    maxPages: timed ? budget.pages : MAX_PAGES,
    maxRows: timed ? budget.rows : Number.POSITIVE_INFINITY,
  };
}

/** Where a read stands after its pages: what it gathered and why it stopped. */
interface Walked {
  gathered: { row: unknown; at: Position }[];
  /** Puts the rows gathered back in the first page's payload, with what stood beside its rows (`{period, rows}`). */
  wrap: ((rows: unknown[]) => unknown) | undefined;
  first: ResultMeta | undefined;
  last: ResultMeta | undefined;
  units: number;
  read: number;
  pagesRead: number;
  oldestRead: unknown;
  /** Whether the rows read are the whole list (the upstream's end, or a start passed). */
  whole: boolean;
  /** The upstream cut its list with no way past it. */
  cutByApi: boolean;
  /** A newest-first list passed the session, range or window asked. */
  passedEarliest: boolean;
  /** The pages one answer may read ran out before the rows wanted. */
  pageBound: boolean;
  /** Whether the API said nothing of what follows the last page read (next-page.ts): the end is then not claimed. */
  endUnknown: boolean;
  /** The upstream named as next a page already read: not followed, and the end not claimed. */
  repeated: boolean;
  /** Why the rows past the last page are out of reach, when the API cut its list (next-page.ts). */
  outOfReach: string | undefined;
  /** Where the next answer starts once every gathered row is shown; undefined: nothing follows. */
  resume: Position | undefined;
  /** The position of the last page asked for. */
  page: Position;
}

/** Where a read starts: nothing gathered yet, at the page and row the call's cursor names (the first page without one). */
function startWalk(paging: Paging): Walked {
  return {
    gathered: [],
    wrap: undefined,
    first: undefined,
    last: undefined,
    units: 0,
    read: 0,
    pagesRead: 0,
    oldestRead: undefined,
    whole: true,
    cutByApi: false,
    passedEarliest: false,
    pageBound: false,
    endUnknown: false,
    repeated: false,
    outOfReach: undefined,
    resume: undefined,
    page: { at: paging.upstreamPage, s: paging.skip, v: paging.visited },
  };
}

/** The read itself; `answered` collects each page as it is answered. */
async function readPages(
  query: DatasetQuery,
  local: QueryValues,
  paging: Paging,
  extra: RowFilter | undefined,
  deps: LocalReadDeps,
  answered: DatasetPage[],
): Promise<Omit<LocalRead, 'forget' | 'cachedForMs'>> {
  const plan = readPlan(query, local, extra, deps);
  const back = new BackStop(plan.earliest, extra?.before);
  const walk = startWalk(paging);
  for (let index = 0; index < plan.maxPages; index += 1) {
    walk.endUnknown = false;
    const page = deps.client.pageOf(plan.sent, walk.page.at);
    const result = await deps.client.readPage(page, { call: deps.call, onProgress: deps.onProgress });
    answered.push(page);
    walk.pagesRead += 1;
    walk.first ??= result.meta;
    walk.last = result.meta;
    if (!result.meta.cache_hit) walk.units += 1;
    const place = rowsPlace(result.data);
    // Not a list: nothing to filter or page here; the answer is the upstream's, whole.
    if (!place) return { result, cursorAfter: () => undefined, units: walk.units };
    walk.wrap ??= place.wrap;
    if (scanPage(place.rows, plan, back, walk)) break;
    if (stopsAfterPage(result.meta, plan, walk, index === plan.maxPages - 1)) break;
  }
  return localAnswer(query.dataset, plan, back, walk, paging, extra);
}

/** After a page read to its end: moves `walk` to the next page, or says (true) why the read stops here. */
function stopsAfterPage(meta: ResultMeta, plan: ReadPlan, walk: Walked, lastPage: boolean): boolean {
  // A next page the document gives no way to ask for is out of reach: the upstream cut here (client.ts).
  const next = meta.next_page;
  walk.endUnknown = meta.end_unknown === true;
  if (!next) {
    walk.whole = !rowsLeftOut(meta);
    walk.cutByApi = !walk.whole;
    walk.outOfReach = meta.out_of_reach;
    return true;
  }
  // A page already read, in this answer or an earlier one: following it would repeat rows, perhaps forever.
  if (pageRepeats(walk.page.v, walk.page.at, next)) {
    walk.repeated = true;
    return true;
  }
  walk.page = { at: next, s: 0, v: visitedThrough(walk.page.v, walk.page.at) };
  // Enough rows, or the pages one answer may read are spent: the next answer starts there.
  if (walk.gathered.length >= plan.wanted || lastPage || walk.read >= plan.maxRows) {
    walk.pageBound = walk.gathered.length < plan.wanted;
    walk.resume = walk.page;
    return true;
  }
  return false;
}

/** Reads one page's rows into `walk` from its position; true when the read stops within it. */
function scanPage(rows: readonly unknown[], plan: ReadPlan, back: BackStop, walk: Walked): boolean {
  for (let at = walk.page.s; at < rows.length; at += 1) {
    if (walk.gathered.length >= plan.wanted) {
      walk.resume = { ...walk.page, s: at };
      return true;
    }
    walk.read += 1;
    const row = rows[at];
    walk.oldestRead = row;
    if (back.passes(row)) {
      walk.passedEarliest = true;
      walk.whole = true;
      return true;
    }
    if (plan.keep(row)) walk.gathered.push({ row, at: { ...walk.page, s: at } });
  }
  return false;
}

/** What a read fell short of, in words: rows the API cut off, how far back it reached, what matched, a window not reached. */
interface Shortfall {
  readonly moreRows: string | undefined;
  /** A time window the read ended short of: its prints before the oldest read were never seen, so the answer is not complete. */
  readonly windowUnread: boolean;
  readonly reachedBackTo: string | undefined;
  readonly notice: string | undefined;
  /** The read ended with the list, neither at the limit nor past the start asked. */
  readonly listEnded: boolean;
}

function shortfallOf(plan: ReadPlan, back: BackStop, walk: Walked, extra: RowFilter | undefined): Shortfall {
  const { filters, earliest } = plan;
  const { gathered, read } = walk;
  // The upstream cut its list and offers no way past it: neither a larger limit (the pages
  // read were its largest) nor calling again reaches older rows.
  const cutRows =
    walk.cutByApi && filters.length > 0 && gathered.length < plan.wanted
      ? `The API returned ${read} rows and no cursor to older ones, of which ${gathered.length} matched ${filterWords(filters)}: older rows cannot be read through this API, and a larger limit reads no further.`
      : undefined;
  // A time window the read ended short of (the list ended, was cut or said nothing more, and no
  // print before the window's start was seen): never answered as complete.
  const windowUnread =
    plan.timed && extra !== undefined && walk.resume === undefined && !walk.passedEarliest
      ? windowNotCovered(extra, oldestClock(walk.oldestRead === undefined ? [] : [walk.oldestRead]))
      : undefined;
  const moreRows = windowUnread ?? cutRows;
  // The read ended short of the session or range start (not because the limit was met): say how far back it reached.
  const listEnded = walk.resume === undefined && !walk.passedEarliest && walk.whole;
  const oldestDate = back.oldestDate;
  const reachedBackTo =
    earliest !== undefined && oldestDate !== undefined && oldestDate > earliest && !walk.passedEarliest && (listEnded || walk.pageBound)
      ? oldestDate
      : undefined;
  const short =
    reachedBackTo === undefined
      ? undefined
      : walk.pageBound
        ? `The ${plan.maxPages} pages one answer may read reach back only to ${reachedBackTo}: follow next_cursor to read further back toward ${earliest}.`
        : `The upstream's list reaches back only to ${reachedBackTo}: rows before it could not be read through this API.`;
  const matched =
    filters.length > 0
      ? `${gathered.length} of ${read} rows read${extra ? readBackTo(extra, walk.oldestRead === undefined ? [] : [walk.oldestRead]) : ''} matched ${filterWords(filters)} (filtered by this server).`
      : undefined;
  // Read to the budget and still short of the window's start: the rows shown are not all (often none) of it.
  const notReached =
    plan.timed && extra && walk.pageBound && !walk.passedEarliest
      ? windowNotReached(extra, walk.oldestRead, walk.pagesRead, gathered.length)
      : undefined;
  const notice = [matched, short, notReached, walk.repeated ? PAGING_REPEATED : undefined].filter(Boolean).join(' ') || undefined;
  return { moreRows, windowUnread: windowUnread !== undefined, reachedBackTo, notice, listEnded };
}

/** The first page's meta for the rows gathered: the quota after the last, the notice, and only what is true of the whole read. */
function gatheredMeta(dataset: DatasetDefinition, walk: Walked, shortfall: Shortfall): ResultMeta {
  const meta = walk.first ?? { operation_id: dataset.operationId, cache_hit: false, age_seconds: 0, truncated: false };
  const { notice } = shortfall;
  const last = walk.last;
  const merged: ResultMeta = {
    ...meta,
    cache_hit: walk.units === 0,
    // A window not reached is not the whole of it: the rows before it are said (more_rows), not implied absent.
    truncated: !walk.whole || shortfall.windowUnread,
    ...(notice ? { notice: [notice, meta.notice].filter(Boolean).join(' ') } : {}),
    // The quota and rate left after the last request, not the first.
    ...(last?.quota_remaining !== undefined ? { quota_remaining: last.quota_remaining } : {}),
    ...(last?.quota_remaining_pct !== undefined ? { quota_remaining_pct: last.quota_remaining_pct } : {}),
    ...(last?.rate_limit_remaining !== undefined ? { rate_limit_remaining: last.rate_limit_remaining } : {}),
  };
  delete merged.next_page;
  delete merged.end_unknown;
  delete merged.out_of_reach;
  if (walk.cutByApi && walk.outOfReach !== undefined) merged.out_of_reach = walk.outOfReach;
  // The read stopped at the start of a page the API did not say exists, or at a list whose end it did not say.
  const resume = walk.resume;
  if (walk.endUnknown && (resume === undefined ? shortfall.listEnded : resume.s === 0 && resume.at === walk.page.at))
    merged.end_unknown = true;
  // The upstream went round in a circle: every row read is shown once, and the end is not claimed.
  if (walk.repeated && resume === undefined) merged.end_unknown = true;
  // A window read short of its start: whether prints lie before the oldest read is not known either.
  if (shortfall.windowUnread) merged.end_unknown = true;
  // `truncated` here speaks of rows.
  delete merged.content_cut;
  return merged;
}

/** Our cursor to `position`, for a call that has one to hand out; undefined: nothing follows. */
function cursorTo(paging: Paging, position: Position | undefined): string | undefined {
  const base = paging.base;
  if (!position || !base) return undefined;
  return encodePageCursor({
    ...base,
    ...positionOf(position.at),
    s: position.s,
    ...(position.v && position.v.length > 0 ? { v: [...position.v] } : {}),
  });
}

/** The rows gathered as one answer: the first page's meta, the quota after the last, and what the read could not reach, said. */
function localAnswer(
  dataset: DatasetDefinition,
  plan: ReadPlan,
  back: BackStop,
  walk: Walked,
  paging: Paging,
  extra: RowFilter | undefined,
): Omit<LocalRead, 'forget' | 'cachedForMs'> {
  const { gathered, resume } = walk;
  const shortfall = shortfallOf(plan, back, walk, extra);
  const { reachedBackTo, moreRows } = shortfall;
  return {
    result: { data: (walk.wrap ?? ((rows) => rows))(gathered.map((g) => g.row)), meta: gatheredMeta(dataset, walk, shortfall) },
    cursorAfter: (kept) => cursorTo(paging, kept < gathered.length ? gathered[kept]?.at : resume),
    units: walk.units,
    ...(reachedBackTo !== undefined ? { reachedBackTo } : {}),
    ...(moreRows !== undefined ? { moreRows } : {}),
    ...(walk.cutByApi && gathered.length < plan.wanted ? { cutBeforeLimit: true as const } : {}),
  };
}
