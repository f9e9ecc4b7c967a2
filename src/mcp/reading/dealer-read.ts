/**
 * The read stage of a dealer-history call. The upstream pages snapshots newest first,
 * 5-minute granularity, three sessions; the walk reads those pages (cached, so a repeat
 * costs no unit) from the cursor's position, skipping snapshots newer than the window,
 * collecting those inside it, and stopping at the first one older than it, at the limit,
 * or when the upstream has no next page (or does not say whether it has one). The page
 * size and cursor go under the names the document gives those roles, and only if it lists
 * them; a history that takes only a cursor is read at its own page size.
 */
import type { ApiResult, MarketDataClient, ProgressEvent } from '../../api/client.js';
import type { CallContext } from '../../api/call-context.js';
import { pageKey, type NextPage } from '../../api/next-page.js';
import { rowsIn } from '../../api/payload-parts.js';
import { rowsLeftOut, type ResultMeta } from '../../api/result-meta.js';
import { withValues, type DatasetQuery } from '../../api/dataset-query.js';
import type { DealerSnapshot } from '../../catalog/index.js';
import type { DealerCall, DealerWindow } from '../arguments/dealer-call.js';
import { withScopeAlternatives } from '../arguments/scope.js';
import { readSnapshot } from './dealer-snapshot.js';
import { knownEmptyDealer, type KnownEmpty } from './known-empty.js';

/**
 * Upstream page size asked for: at most this, so a session takes two pages where the
 * upstream allows it (what a call costs is said from it: tools/request-costs.ts).
 */
export const PAGE = 60;
/** Three sessions of 78 snapshots. */
const HISTORY_SNAPSHOTS = 3 * 78;
/** Pages read in one answer at most, whatever the upstream's page size: each is a unit. */
export const MAX_PAGES = 12;

export interface Collected {
  snapshot: DealerSnapshot;
  /** The upstream page it came from (a token, URL, page number or offset; absent for the first). */
  page: NextPage | undefined;
  /** The upstream's next page, when this was the last row of its page. */
  after?: NextPage;
}

/** What the walk found: the snapshots, what it cost, what it left out, and how it ended. */
export interface DealerRead {
  readonly kind: 'read';
  collected: Collected[];
  firstMeta: ResultMeta | undefined;
  lastMeta: ResultMeta | undefined;
  /** Upstream requests spent (cache hits cost nothing). */
  units: number;
  /** Snapshots remain past what was collected, in the direction read; `remaining` says which. */
  more: boolean;
  remaining: string | undefined;
  /** Snapshots of another ticker, rows that are no snapshot, and snapshots lacking a level (by field): left out, named. */
  foreign: number;
  unrecognised: number;
  unreadable: Map<string, number>;
  /** The walk ended where the API did not say whether older snapshots exist: not claimed either way. */
  unknownTail: boolean;
  /** The upstream named as next a page already read: not followed (unknownTail is set). */
  repeated: boolean;
  /** The API holds older snapshots with no next page this server can ask for: `more`, with no cursor past them. */
  cutByApi: boolean;
  /** The window as read: without one, `levels` and `full` take the newest session not yet shown. */
  resolved: DealerWindow;
  /** Sessions the pages read hold, newest first; `exhausted` when the walk reached the oldest. */
  seenSessions: string[];
  exhausted: boolean;
}

export interface DealerReadDeps {
  client: MarketDataClient;
  call: CallContext;
  onProgress: ((event: ProgressEvent) => void) | undefined;
}

/** A page's query, its position aside (client.datasetAt adds it); a role the document does not list is not sent. */
function pageQuery(query: DatasetQuery, size: number): DatasetQuery {
  const name = query.roles.pageSize;
  const max = query.largestPage;
  return withValues(query, name ? { [name]: Math.min(size, max ?? size) } : {});
}

export async function readDealer(
  request: DealerCall,
  deps: DealerReadDeps,
): Promise<DealerRead | { kind: 'known-empty'; empty: KnownEmpty }> {
  const { view, window, limit, position } = request;
  const { dataset } = request.query;
  const empty = position.a ? undefined : knownEmptyDealer(window, Date.now());
  if (empty) return { kind: 'known-empty', empty };
  const asOne = view === 'latest' && !window.session && !window.from && !window.to && !position.at && !position.a;
  const query = pageQuery(request.query, asOne ? 1 : PAGE);
  const walk = newWalk(request, limit ?? (view === 'latest' ? 1 : HISTORY_SNAPSHOTS));
  let at = position.at;
  // Pages this read asked for: one the upstream names again is never followed (its paging went round in a circle).
  const read: NextPage[] = at ? [at] : [];
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await deps.client
      .datasetAt(query, at, { call: deps.call, onProgress: deps.onProgress })
      .catch(async (error: unknown) => {
        throw await withScopeAlternatives(deps.client, dataset.operationId, error, deps.call);
      });
    const stopped = takePage(walk, result, at);
    // Only a next page the document lets us ask for (client.ts): never this one read again.
    const next = result.meta.next_page;
    const endUnknown = result.meta.end_unknown === true;
    if (stopped) break;
    if (!next) {
      // The API holds older snapshots it gave no way to ask for (`has_more` and no cursor, a next page elsewhere): left out, said.
      if (rowsLeftOut(result.meta)) {
        [walk.more, walk.remaining] = [
          true,
          result.meta.out_of_reach ?? 'The API says older snapshots follow but names no page this server can ask for.',
        ];
        walk.cutByApi = true;
        break;
      }
      walk.exhausted = !endUnknown;
      walk.unknownTail = endUnknown;
      break;
    }
    if (read.some((p) => pageKey(p) === pageKey(next))) {
      walk.unknownTail = true;
      walk.repeated = true;
      break;
    }
    read.push(next);
    at = next;
    // Enough rows and no older bound to look for: the upstream's own next page says whether
    // more follows, without reading another page (another unit) only to find out.
    if (walk.collected.length >= walk.wanted && !walk.resolved.session && !walk.resolved.from) {
      [walk.more, walk.remaining, walk.unknownTail] = [true, 'older snapshots', endUnknown];
      break;
    }
    if (page === MAX_PAGES - 1)
      [walk.more, walk.remaining, walk.unknownTail] = [true, `snapshots past the ${MAX_PAGES} upstream pages one answer reads`, endUnknown];
  }
  return walk;
}

interface Walk extends DealerRead {
  readonly wanted: number;
  readonly implicit: boolean;
  readonly ticker: string | undefined;
  readonly after: string | undefined;
}

function newWalk(request: DealerCall, wanted: number): Walk {
  const { view, window } = request;
  return {
    kind: 'read',
    collected: [],
    firstMeta: undefined,
    lastMeta: undefined,
    units: 0,
    more: false,
    remaining: undefined,
    foreign: 0,
    unrecognised: 0,
    unreadable: new Map(),
    unknownTail: false,
    repeated: false,
    cutByApi: false,
    resolved: { ...window },
    seenSessions: [],
    exhausted: false,
    wanted,
    // Without a session or range, levels and full cover the newest session not yet shown; older ones remain (sessions covers all three).
    implicit: view !== 'latest' && view !== 'sessions' && !window.session && !window.from && !window.to,
    ticker: request.query.ticker,
    after: request.position.a,
  };
}

/** Takes one page's snapshots into the walk; true when the walk stops within it (past the window, or at the limit). */
function takePage(walk: Walk, result: ApiResult, at: NextPage | undefined): boolean {
  walk.firstMeta ??= result.meta;
  walk.lastMeta = result.meta;
  if (!result.meta.cache_hit) walk.units += 1;
  const next = result.meta.next_page;
  const read = (rowsIn(result.data) ?? []).map(readSnapshot);
  walk.unrecognised += read.filter((r) => r === undefined).length;
  // Snapshots lacking a level are named, never answered blank (dealer-snapshot.ts).
  for (const r of read)
    if (r && 'missing' in r) for (const field of r.missing) walk.unreadable.set(field, (walk.unreadable.get(field) ?? 0) + 1);
  const all = read.flatMap((r) => (r && 'snapshot' in r ? [r.snapshot] : []));
  // A snapshot of another ticker is not this ticker's history: never passed on as if it were.
  const rows = all.filter((row) => row.ticker === '' || row.ticker === walk.ticker);
  walk.foreign += all.length - rows.length;
  for (const [index, row] of rows.entries()) {
    if (!walk.seenSessions.includes(row.session_date_et)) walk.seenSessions.push(row.session_date_et);
    if (walk.after && Date.parse(row.snapshot_at) >= Date.parse(walk.after)) continue;
    if (walk.implicit && !walk.resolved.session) walk.resolved.session = row.session_date_et;
    const where = place(row, walk.resolved);
    if (where === 'newer') continue;
    if (where === 'older') {
      if (walk.implicit) [walk.more, walk.remaining] = [true, `older sessions, the next being ${row.session_date_et} (ET)`];
      return true;
    }
    if (walk.collected.length >= walk.wanted) {
      const session = walk.resolved.session ? ` in session ${walk.resolved.session}` : '';
      [walk.more, walk.remaining] = [true, `more snapshots from ${row.snapshot_at} back${session}`];
      return true;
    }
    // The last row of a page remembers the upstream's next page, so a later answer starts there.
    walk.collected.push({ snapshot: ordered(row), page: at, ...(index === rows.length - 1 && next ? { after: next } : {}) });
  }
  return false;
}

/** Where a snapshot falls against the window: newer than it, inside, or older (the walk stops). */
function place(snapshot: DealerSnapshot, window: DealerWindow): 'newer' | 'inside' | 'older' {
  if (window.session) {
    if (snapshot.session_date_et > window.session) return 'newer';
    return snapshot.session_date_et === window.session ? 'inside' : 'older';
  }
  const at = Date.parse(snapshot.snapshot_at);
  if (window.to && (window.to.length === 10 ? snapshot.session_date_et > window.to : at > Date.parse(window.to))) return 'newer';
  if (window.from && (window.from.length === 10 ? snapshot.session_date_et < window.from : at < Date.parse(window.from))) return 'older';
  return 'inside';
}

/** Strikes in strike order and the summary before them: the answer to most questions first. */
function ordered(snapshot: DealerSnapshot): DealerSnapshot {
  const { strikes, ...rest } = snapshot;
  return { ...rest, strikes: [...strikes].sort((x, y) => x.strike_usd - y.strike_usd) };
}
