/**
 * The dealer GEX tool's answers. The upstream pages snapshots newest first, 5-minute
 * granularity, three sessions; this server reads those pages (cached, so a repeat costs
 * no unit) and answers the common questions in one small call: the newest snapshot
 * (summary first, strikes by strike), compact `levels` rows for a session or range, or
 * `full` snapshots. Its cursor continues right after the last snapshot shown.
 *
 * The spec fixes the response, not the query: page size and cursor are sent under the
 * names the live document gives those roles (param-roles.ts), and only if it lists them;
 * a history that takes only a cursor is read at its own page size. Each answer says how
 * many upstream requests it spent and the quota left after the last one.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { MarketDataClient, ProgressEvent } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { ResultMeta } from '../api/result-meta.js';
import {
  dealerShaping,
  LEVEL_COLUMNS,
  NODE_TYPES,
  SNAPSHOT_STATES,
  validateAgentParam,
  validateRequest,
  type DatasetDefinition,
  type DealerSnapshot,
} from '../catalog/index.js';
import { pageSizeMaximum, upstreamRoles } from '../catalog/param-roles.js';
import { rowsIn } from '../api/payload-parts.js';
import { argumentsOf, decodePageCursor, encodePageCursor, isOurCursor, type PageCursor } from './paging.js';
import { baseMeta, toolResult, type ToolMeta } from './results.js';
import { summariseSessions } from './dealer-sessions.js';
import { knownEmptyDealer, knownEmptyResult } from './known-empty.js';
import { beforeRetention } from './dealer-retention.js';
import { refusalError } from './tool-errors.js';
import { fitsTokens } from './tokens.js';

/** Upstream page size asked for: at most this, so a session takes two pages where the upstream allows it. */
export const PAGE = 60;
/** Three sessions of 78 snapshots. */
const HISTORY_SNAPSHOTS = 3 * 78;
/** Pages read in one answer at most, whatever the upstream's page size: each is a unit. */
const MAX_PAGES = 12;

/** One page's query, under the upstream's own names; a role it does not list is not sent. */
function pageQuery(dataset: DatasetDefinition, size: number, cursor: string | undefined): Record<string, string | number> {
  const roles = upstreamRoles(dataset);
  const max = pageSizeMaximum(dataset);
  return {
    ...(roles.pageSize ? { [roles.pageSize]: Math.min(size, max ?? size) } : {}),
    ...(cursor !== undefined && roles.cursor ? { [roles.cursor]: cursor } : {}),
  };
}

export interface DealerDeps {
  client: MarketDataClient;
  budgetTokens: number;
  simulated: boolean;
  signal: AbortSignal;
  onProgress: ((event: ProgressEvent) => void) | undefined;
}

type View = 'latest' | 'levels' | 'full' | 'sessions';

interface Window {
  session?: string;
  from?: string;
  to?: string;
}

interface Collected {
  snapshot: DealerSnapshot;
  /** Upstream cursor of the page it came from. */
  page: string | undefined;
  /** Upstream cursor of the next page, when this was the last row of its page. */
  after?: string;
}

const ET_TIME = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const STATE_ALIASES: Record<string, (typeof SNAPSHOT_STATES)[number]> = { final: 'closed', closed: 'closed', live: 'live', stale: 'stale' };

function refuse(message: string, hint: string): ApiError {
  return new ApiError({ code: 'VALIDATION_ERROR', status: 400, message, hint, local: true });
}

/** Checks the MCP-side arguments against the catalog's shaping schemas, typed as agent input. */
function parseShaping(
  dataset: DatasetDefinition,
  args: Record<string, unknown>,
): { view: View; window: Window; limit: number | undefined } {
  const parsed: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(dealerShaping)) {
    if (name === 'cursor') continue;
    const raw = args[name];
    if (raw === undefined || raw === null) continue;
    const checked = validateAgentParam(dataset, name, schema, raw);
    if (!checked.ok) throw refusalError(checked.refusal);
    parsed[name] = checked.value;
  }
  const view = (parsed['view'] as View | undefined) ?? 'latest';
  const session = parsed['session_date'] as string | undefined;
  const from = parsed['from'] as string | undefined;
  const to = parsed['to'] as string | undefined;
  if (session && isWeekend(session)) {
    throw refuse(
      `${session} is a ${weekdayName(session)}: no exchange session, so no dealer snapshots.`,
      'Give a weekday session_date (the history holds the latest three sessions), or omit session_date for the latest.',
    );
  }
  if (session && (from || to)) throw refuse('session_date and from/to cannot be combined.', 'Give one session_date, or a from/to range.');
  if (from && to && instant(from, 'start') > instant(to, 'end')) throw refuse('from is after to.', 'Swap from and to.');
  return {
    view,
    window: { ...(session ? { session } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) },
    limit: parsed['limit'] as number | undefined,
  };
}

/** Saturday and Sunday are never exchange sessions, whatever the calendar of holidays. */
function isWeekend(date: string): boolean {
  const day = new Date(`${date}T12:00:00Z`).getUTCDay();
  return day === 0 || day === 6;
}

function weekdayName(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
}

/** A date bound as a time: a date alone covers its whole ET day. */
function instant(value: string, edge: 'start' | 'end'): number {
  if (value.length === 10)
    return Date.parse(`${value}T${edge === 'start' ? '00:00:00' : '23:59:59'}-05:00`) + (edge === 'end' ? 3_600_000 : 0);
  return Date.parse(value);
}

/** Where a snapshot falls against the window: newer than it, inside, or older (the walk stops). */
function place(snapshot: DealerSnapshot, window: Window): 'newer' | 'inside' | 'older' {
  if (window.session) {
    if (snapshot.session_date_et > window.session) return 'newer';
    return snapshot.session_date_et === window.session ? 'inside' : 'older';
  }
  const at = Date.parse(snapshot.snapshot_at);
  if (window.to && (window.to.length === 10 ? snapshot.session_date_et > window.to : at > Date.parse(window.to))) return 'newer';
  if (window.from && (window.from.length === 10 ? snapshot.session_date_et < window.from : at < Date.parse(window.from))) return 'older';
  return 'inside';
}

function isSnapshot(value: unknown): value is DealerSnapshot {
  return typeof value === 'object' && value !== null && typeof (value as { snapshot_at?: unknown }).snapshot_at === 'string';
}

/** Values outside the documented sets are mapped onto them, so the output schema always holds. */
function normalized(snapshot: DealerSnapshot): DealerSnapshot {
  const strikes = [...(Array.isArray(snapshot.strikes) ? snapshot.strikes : [])]
    .map((s) => ({
      ...s,
      node_type: (NODE_TYPES as readonly string[]).includes(s.node_type) ? s.node_type : s.net_gex_usd >= 0 ? 'positive' : 'negative',
    }))
    .sort((a, b) => a.strike_usd - b.strike_usd);
  // Summary first: the answer to most questions, before the strikes.
  return {
    ticker: snapshot.ticker,
    snapshot_at: snapshot.snapshot_at,
    session_date_et: snapshot.session_date_et,
    state: STATE_ALIASES[snapshot.state] ?? 'stale',
    spot_usd: snapshot.spot_usd,
    summary: snapshot.summary,
    strikes,
  };
}

function levelsOf(snapshots: DealerSnapshot[]): unknown {
  const sessions: { session_date_et: string; rows: (string | number)[][] }[] = [];
  for (const s of snapshots) {
    let group = sessions[sessions.length - 1];
    if (!group || group.session_date_et !== s.session_date_et) {
      group = { session_date_et: s.session_date_et, rows: [] };
      sessions.push(group);
    }
    const m = s.summary;
    group.rows.push([
      ET_TIME.format(new Date(s.snapshot_at)),
      s.spot_usd,
      m.gamma_flip_usd,
      m.king_strike_usd,
      m.call_wall_strike_usd,
      m.put_wall_strike_usd,
      m.major_positive_strike_usd,
      m.major_negative_strike_usd,
      Math.round(m.total_gex_usd / 1e6),
    ]);
  }
  return { columns: [...LEVEL_COLUMNS], sessions };
}

/** Keeps the strongest strikes of one snapshot (by rank), in strike order, until it fits. */
async function strongestStrikes(snapshot: DealerSnapshot, fits: (s: DealerSnapshot) => Promise<boolean>): Promise<DealerSnapshot> {
  const byRank = [...snapshot.strikes].sort((a, b) => a.rank - b.rank);
  let kept = byRank.length;
  let current = snapshot;
  while (kept > 0 && !(await fits(current))) {
    kept = Math.floor(kept * 0.8);
    const keep = new Set(byRank.slice(0, kept));
    current = { ...snapshot, strikes: snapshot.strikes.filter((s) => keep.has(s)) };
  }
  return current;
}

function coversOf(window: Window, snapshots: DealerSnapshot[]): string {
  if (window.session) return `session ${window.session} (ET)`;
  if (window.from || window.to) return `${window.from ?? 'oldest'} to ${window.to ?? 'latest'}`;
  const sessions = [...new Set(snapshots.map((s) => s.session_date_et))];
  return sessions.length > 0 ? `session ${sessions.join(', ')} (ET)` : 'latest';
}

export async function answerDealer(dataset: DatasetDefinition, args: Record<string, unknown>, deps: DealerDeps): Promise<CallToolResult> {
  const { ticker, cursor: rawCursor, ...given } = args;
  for (const name of Object.keys(given)) {
    if (!(name in dealerShaping)) {
      throw refuse(`Unknown parameter "${name}".`, `Accepted parameters: ticker, ${Object.keys(dealerShaping).join(', ')}.`);
    }
  }
  const checked = validateRequest(dataset, ticker, pageQuery(dataset, PAGE, undefined));
  if (!checked.ok) throw refusalError(checked.refusal);
  const tickerValue = checked.ticker;

  let shapingArgs: Record<string, unknown> = given;
  let position: Pick<PageCursor, 'u' | 'a'> = {};
  if (isOurCursor(rawCursor)) {
    const decoded = decodePageCursor(rawCursor, dataset.operationId, tickerValue);
    shapingArgs = argumentsOf(decoded, given, dataset.ticker !== undefined);
    position = { ...(decoded.u ? { u: decoded.u } : {}), ...(decoded.a ? { a: decoded.a } : {}) };
  } else if (rawCursor !== undefined && rawCursor !== null) {
    // Every answer of this tool hands out cursors of ours (mc1-…), so anything else is not one
    // the agent was given: refused here rather than sent upstream to fail there.
    throw refuse('The cursor is invalid: not one this server issued.', 'Pass meta.next_cursor exactly as returned, or drop cursor.');
  }
  const { view, window, limit } = parseShaping(dataset, shapingArgs);
  const empty = position.a ? undefined : knownEmptyDealer(window, Date.now());
  if (empty)
    return knownEmptyResult(
      dataset.operationId,
      empty,
      deps.simulated,
      view === 'levels' ? levelsOf([]) : view === 'sessions' ? { session_summaries: [] } : [],
    );
  const wanted = limit ?? (view === 'latest' ? 1 : HISTORY_SNAPSHOTS);
  const firstPageSize = view === 'latest' && !window.session && !window.from && !window.to && !position.u && !position.a ? 1 : PAGE;
  /** Without a session or range, levels and full cover the newest session not yet shown; older ones remain (sessions covers all three). */
  const implicit = view !== 'latest' && view !== 'sessions' && !window.session && !window.from && !window.to;

  const collected: Collected[] = [];
  let firstMeta: ResultMeta | undefined;
  let lastMeta: ResultMeta | undefined;
  /** Upstream requests this answer spent (cache hits cost nothing). */
  let units = 0;
  let more = false;
  /** What remains in the direction read, in words, when `more`. */
  let remaining: string | undefined;
  let foreign = 0;
  /** Rows that are no dealer snapshot at all (no snapshot_at): never read silently as nothing. */
  let unrecognised = 0;
  let pageCursor = position.u;
  const resolved: Window = { ...window };
  /** Sessions the pages read hold, newest first; `exhausted` when the walk reached the oldest. */
  const seenSessions: string[] = [];
  let exhausted = false;
  walk: for (let page = 0; page < MAX_PAGES; page += 1) {
    const query = pageQuery(dataset, firstPageSize, pageCursor);
    const result = await deps.client.dataset(dataset, tickerValue, query, { signal: deps.signal, onProgress: deps.onProgress });
    firstMeta ??= result.meta;
    lastMeta = result.meta;
    if (!result.meta.cache_hit) units += 1;
    const next = result.meta.next_cursor ?? undefined;
    const read = rowsIn(result.data) ?? [];
    const all = read.filter(isSnapshot);
    unrecognised += read.length - all.length;
    // A snapshot of another ticker is not this ticker's history: never passed on as if it were.
    const rows = all.filter((row) => typeof row.ticker !== 'string' || row.ticker === tickerValue);
    foreign += all.length - rows.length;
    for (const [index, row] of rows.entries()) {
      if (!seenSessions.includes(row.session_date_et)) seenSessions.push(row.session_date_et);
      if (position.a && Date.parse(row.snapshot_at) >= Date.parse(position.a)) continue;
      if (implicit && !resolved.session) resolved.session = row.session_date_et;
      const where = place(row, resolved);
      if (where === 'newer') continue;
      if (where === 'older') {
        if (implicit) {
          more = true;
          remaining = `older sessions, the next being ${row.session_date_et} (ET)`;
        }
        break walk;
      }
      if (collected.length >= wanted) {
        more = true;
        remaining = `more snapshots from ${row.snapshot_at} back${resolved.session ? ` in session ${resolved.session}` : ''}`;
        break walk;
      }
      // The last row of a page remembers the upstream cursor after it, so a later page starts there.
      collected.push({ snapshot: normalized(row), page: pageCursor, ...(index === rows.length - 1 && next ? { after: next } : {}) });
    }
    // A next page the document gives no cursor parameter to reach is out of reach: never re-read this one.
    pageCursor = upstreamRoles(dataset).cursor ? next : undefined;
    if (!pageCursor) {
      exhausted = true;
      break;
    }
    // Enough rows and no older bound to look for: the upstream's own next_cursor says whether
    // more follows, without reading another page (another unit) only to find out.
    if (collected.length >= wanted && !resolved.session && !resolved.from) {
      more = true;
      remaining = 'older snapshots';
      break;
    }
    if (page === MAX_PAGES - 1) {
      more = true;
      remaining = `snapshots past the ${MAX_PAGES} upstream pages one answer reads`;
    }
  }

  const upstreamMeta = firstMeta ?? { operation_id: dataset.operationId, cache_hit: false, age_seconds: 0, truncated: false };
  // The quota and rate left after the last request, not the first.
  const { quota_remaining: quotaLeft, rate_limit_remaining: rateLeft, quota_remaining_pct: quotaPct } = lastMeta ?? upstreamMeta;
  const meta: ToolMeta = {
    ...baseMeta(
      { ...upstreamMeta, cache_hit: units === 0 && firstMeta !== undefined },
      { budgetTokens: deps.budgetTokens, simulated: deps.simulated },
    ),
    ...(quotaLeft !== undefined ? { quota_remaining: quotaLeft } : {}),
    ...(rateLeft !== undefined ? { rate_limit_remaining: rateLeft } : {}),
    ...(quotaPct !== undefined ? { quota_remaining_pct: quotaPct } : {}),
    units,
  };
  if (unrecognised > 0 && foreign === 0 && collected.length === 0)
    throw new ApiError({
      code: 'RESPONSE_INVALID',
      status: null,
      message: `The API answered ${unrecognised} row(s) without snapshot_at, session_date_et or summary: not dealer snapshots, so none could be read.`,
      hint: "The request was charged: do not repeat it unchanged at once; report it with request_id to the API's provider.",
      recoverable: true,
      requestId: lastMeta?.request_id ?? firstMeta?.request_id ?? null,
      local: true,
    });
  if (unrecognised > 0)
    meta.notice = [`${unrecognised} row(s) of the API's answer were not dealer snapshots (no snapshot_at) and were left out.`, meta.notice]
      .filter(Boolean)
      .join(' ');
  if (foreign > 0 && collected.length === 0)
    throw new ApiError({
      code: 'RESPONSE_INVALID',
      status: null,
      message: `The API answered ${foreign} snapshot(s) of another ticker than ${tickerValue ?? 'the one asked'}; none were passed on.`,
      // Each such answer was a charged 200: the same arguments at once would likely be charged for the same.
      hint: "Nothing usable came back for this ticker, and the request was charged: do not repeat it unchanged at once; try another ticker or view, or report it with request_id to the API's provider.",
      recoverable: true,
      requestId: lastMeta?.request_id ?? firstMeta?.request_id ?? null,
      local: true,
    });
  if (foreign > 0)
    meta.notice = [`${foreign} snapshot(s) of another ticker in the API's answer were left out.`, meta.notice].filter(Boolean).join(' ');
  // A range starting before the retained sessions: the part not retained is named, and covers starts where the history does.
  const retained = beforeRetention(window, Date.now(), exhausted ? seenSessions[seenSessions.length - 1] : undefined);
  if (retained) meta.notice = [retained.notice, meta.notice].filter(Boolean).join(' ');
  const coveredWindow: Window = retained ? { ...resolved, from: retained.oldest } : resolved;
  // A session or range the history holds nothing of: say so, and name the sessions it does hold.
  if ((window.session || window.from || window.to) && collected.length === 0 && !position.a) {
    const held = seenSessions.filter((d) => d !== window.session);
    const list = held.length > 0 ? `${held.join(', ')}${exhausted ? '' : ' and older'}` : 'none';
    const missing = window.session
      ? `No snapshots for session ${window.session}: not an exchange session the history holds (a holiday, or older than the latest three).`
      : `No snapshots from ${window.from ?? 'the oldest'} to ${window.to ?? 'the latest'}: the history holds only the latest three sessions, none of them in this range.`;
    meta.notice = [`${missing} Sessions held (ET, newest first): ${list}.`, meta.notice].filter(Boolean).join(' ');
  }
  // The cursor carries the window asked for: one resolved here (the newest session) is
  // resolved again from the cursor's position, so following it walks on into older sessions.
  const query: Record<string, string | number> = {
    view,
    ...(window.session ? { session_date: window.session } : {}),
    ...(window.from ? { from: window.from } : {}),
    ...(window.to ? { to: window.to } : {}),
    ...(limit ? { limit } : {}),
  };
  const build = (kept: number, last?: DealerSnapshot): { data: unknown; meta: ToolMeta } => {
    const shown = collected.slice(0, kept).map((c) => c.snapshot);
    if (last) shown[shown.length - 1] = last;
    const lastShown = collected[kept - 1];
    const cut = kept < collected.length;
    const next =
      (cut || more) && lastShown
        ? encodePageCursor({
            o: dataset.operationId,
            ...(tickerValue ? { t: tickerValue } : {}),
            q: query,
            // Right after the last row of a page: start at the next upstream page, not re-read this one.
            ...(lastShown.after ? { u: lastShown.after } : lastShown.page ? { u: lastShown.page } : {}),
            a: lastShown.snapshot.snapshot_at,
          })
        : undefined;
    const newest = shown[0];
    return {
      data: view === 'levels' ? levelsOf(shown) : view === 'sessions' ? { session_summaries: summariseSessions(shown) } : shown,
      meta: {
        ...meta,
        ...(newest ? { as_of: newest.snapshot_at } : {}),
        covers: coversOf(coveredWindow, shown),
        truncated: cut || last !== undefined,
        has_more: next !== undefined,
        ...(next
          ? {
              next_cursor: next,
              remaining: cut
                ? `${collected.length - kept} more snapshots read, then ${remaining ?? 'older ones'}`
                : (remaining ?? 'older snapshots'),
            }
          : {}),
        ...(cut || last
          ? {
              trimmed: {
                rows_returned: kept,
                rows_left: collected.length - kept,
                ...(last ? { strikes_returned: last.strikes.length } : {}),
                how_to_get_more: `Cut to fit the ${deps.budgetTokens}-token result budget. Follow meta.next_cursor (ticker and cursor are enough), or use view=levels, a shorter from/to range or a lower limit.`,
              },
            }
          : {}),
      },
    };
  };
  const fits = (v: unknown): Promise<boolean> => fitsTokens(v, deps.budgetTokens);
  const whole = build(collected.length);
  if (collected.length === 0 || (await fits(whole))) return toolResult(whole);
  let low = 1;
  let high = collected.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (await fits(build(mid))) low = mid;
    else high = mid - 1;
  }
  if (await fits(build(low))) return toolResult(build(low));
  // One full snapshot over the budget: keep its strongest strikes.
  const first = collected[0];
  if (!first) return toolResult(whole);
  const trimmed = await strongestStrikes(first.snapshot, (s) => fits(build(1, s)));
  return toolResult(build(1, trimmed));
}
