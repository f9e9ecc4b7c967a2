/**
 * The last stages of a dealer-history call: the snapshots the walk collected, answered in
 * the view asked (the newest snapshot with its summary first and strikes by strike,
 * compact `levels` rows, `full` snapshots, or one summary per `sessions`), within the
 * token budget, with a cursor that continues right after the last snapshot shown. What the
 * walk left out (snapshots of another ticker, rows that are none, snapshots lacking a
 * level) is named; an answer of nothing usable after a charged request is an error saying so.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { apiError, type ApiError } from '../../api/errors.js';
import { LEVEL_COLUMNS, type DealerSnapshot } from '../../catalog/index.js';
import { encodePageCursor, positionOf } from '../arguments/cursor.js';
import type { DealerCall, DealerWindow } from '../arguments/dealer-call.js';
import type { Collected, DealerRead } from '../reading/dealer-read.js';
import { beforeRetention } from './dealer-retention.js';
import type { KnownEmpty } from '../reading/known-empty.js';
import { knownEmptyResult } from './known-empty-answer.js';
import { summariseSessions } from './dealer-sessions.js';
import { baseMeta, toolResult, unknownEndNotice, type ToolMeta } from './results.js';
import { PAGING_REPEATED } from '../../api/next-page.js';
import { fitsTokens } from './tokens.js';

export interface DealerAnswerDeps {
  budgetTokens: number;
  simulated: boolean;
}

const ET_TIME = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

const withNotice = (meta: ToolMeta, notice: string | undefined): ToolMeta =>
  notice ? { ...meta, notice: [notice, meta.notice].filter(Boolean).join(' ') } : meta;

export async function answerDealerRead(
  request: DealerCall,
  read: DealerRead | { kind: 'known-empty'; empty: KnownEmpty },
  deps: DealerAnswerDeps,
): Promise<CallToolResult> {
  if (read.kind === 'known-empty')
    return knownEmptyResult(request.query.dataset.operationId, read.empty, deps.simulated, viewOf(request, []));
  const { meta, covered } = windowNotices(request, read, leftOutNotices(request, read, dealerMeta(request, read, deps)));
  return fitToBudget({ request, read, meta, covered, budgetTokens: deps.budgetTokens });
}

/** The client's meta of the first page, with the quota and rate left after the last request and the units spent. */
function dealerMeta(request: DealerCall, read: DealerRead, deps: DealerAnswerDeps): ToolMeta {
  const { firstMeta, lastMeta, units } = read;
  const upstream = firstMeta ?? { operation_id: request.query.dataset.operationId, cache_hit: false, age_seconds: 0, truncated: false };
  const { quota_remaining: quotaLeft, rate_limit_remaining: rateLeft, quota_remaining_pct: quotaPct } = lastMeta ?? upstream;
  return {
    ...baseMeta({ ...upstream, cache_hit: units === 0 && firstMeta !== undefined }, deps),
    ...(quotaLeft !== undefined ? { quota_remaining: quotaLeft } : {}),
    ...(rateLeft !== undefined ? { rate_limit_remaining: rateLeft } : {}),
    ...(quotaPct !== undefined ? { quota_remaining_pct: quotaPct } : {}),
    units,
  };
}

/** What the walk left out, named; nothing usable at all after a charged request is an error that says why. */
function leftOutNotices(request: DealerCall, read: DealerRead, meta: ToolMeta): ToolMeta {
  const { unrecognised, unreadable, foreign, collected } = read;
  const requestId = read.lastMeta?.request_id ?? read.firstMeta?.request_id ?? null;
  const nothing = (message: string, hint: string): ApiError => apiError('RESPONSE_INVALID', { message, hint, requestId, local: true });
  const charged = "The request was charged: do not repeat it unchanged at once; report it with request_id to the API's provider.";
  if (unrecognised > 0 && foreign === 0 && collected.length === 0)
    throw nothing(
      `The API answered ${unrecognised} row(s) without snapshot_at, session_date_et or summary: not dealer snapshots, so none could be read.`,
      charged,
    );
  let out = meta;
  if (unreadable.size > 0) {
    const fields = [...unreadable].map(([field, count]) => `${field} (${count})`).join(', ');
    if (collected.length === 0 && foreign === 0)
      throw nothing(
        `The API answered dealer snapshots lacking fields the answer needs, or sending them as neither numbers nor numeric text: ${fields}. None could be read.`,
        "The request was charged: do not repeat it unchanged at once; try another view or session, or report it with request_id to the API's provider.",
      );
    out = withNotice(out, `Snapshots left out for fields the API sent empty or not as numbers: ${fields}; the rest are whole.`);
  }
  if (unrecognised > 0)
    out = withNotice(out, `${unrecognised} row(s) of the API's answer were not dealer snapshots (no snapshot_at) and were left out.`);
  if (foreign > 0 && collected.length === 0)
    throw nothing(
      `The API answered ${foreign} snapshot(s) of another ticker than ${request.query.ticker ?? 'the one asked'}; none were passed on.`,
      // Each such answer was a charged 200: the same arguments at once would likely be charged for the same.
      "Nothing usable came back for this ticker, and the request was charged: do not repeat it unchanged at once; try another ticker or view, or report it with request_id to the API's provider.",
    );
  return foreign > 0 ? withNotice(out, `${foreign} snapshot(s) of another ticker in the API's answer were left out.`) : out;
}

/**
 * A window reaching before the retained sessions, or holding none of them: said, with the
 * sessions held; what the answer covers starts where the history does.
 */
function windowNotices(request: DealerCall, read: DealerRead, meta: ToolMeta): { meta: ToolMeta; covered: DealerWindow } {
  const { window, position } = request;
  const { seenSessions, exhausted, collected } = read;
  const retained = beforeRetention(window, Date.now(), exhausted ? seenSessions[seenSessions.length - 1] : undefined);
  let out = withNotice(meta, retained?.notice);
  if ((window.session || window.from || window.to) && collected.length === 0 && !position.a) {
    const held = seenSessions.filter((d) => d !== window.session);
    const list = held.length > 0 ? `${held.join(', ')}${exhausted ? '' : ' and older'}` : 'none';
    const missing = window.session
      ? `No snapshots for session ${window.session}: not an exchange session the history holds (a holiday, or older than the latest three).`
      : `No snapshots from ${window.from ?? 'the oldest'} to ${window.to ?? 'the latest'}: the history holds only the latest three sessions, none of them in this range.`;
    out = withNotice(out, `${missing} Sessions held (ET, newest first): ${list}.`);
  }
  return { meta: out, covered: retained ? { ...read.resolved, from: retained.oldest } : read.resolved };
}

/** What an answer is built from. */
interface Shaping {
  request: DealerCall;
  read: DealerRead;
  meta: ToolMeta;
  covered: DealerWindow;
  budgetTokens: number;
}

/** As many snapshots as fit the budget (found by halving), and one over it cut to its strongest strikes. */
async function fitToBudget(shaping: Shaping): Promise<CallToolResult> {
  const build = (kept: number, last?: DealerSnapshot): { data: unknown; meta: ToolMeta } => built(shaping, kept, last);
  const fits = (v: unknown): Promise<boolean> => fitsTokens(v, shaping.budgetTokens);
  const { collected } = shaping.read;
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
  const first = collected[0];
  if (!first) return toolResult(whole);
  const cut = await strongestStrikes(first.snapshot, (s) => fits(build(1, s)));
  const one = build(1, cut);
  // A budget too small for one snapshot even without its strikes (a state spelt otherwise adds
  // its state_normalized): the advice in fewer words, rather than an answer over the budget.
  return toolResult((await fits(one)) ? one : built(shaping, 1, cut, true));
}

/** The answer showing the first `kept` snapshots (the last of them replaced by `last`, cut to fit); `brief`: its advice short. */
function built(shaping: Shaping, kept: number, last?: DealerSnapshot, brief = false): { data: unknown; meta: ToolMeta } {
  const { request, read, meta, covered, budgetTokens } = shaping;
  const { collected, more, remaining, unknownTail } = read;
  const shown = collected.slice(0, kept).map((c) => c.snapshot);
  if (last) shown[shown.length - 1] = last;
  const cut = kept < collected.length;
  // Snapshots the API holds with no next page this server can ask for: left out, said, and no cursor that would re-read the same page.
  const cutByApi = read.cutByApi && !cut;
  const next = (cut || (more && !cutByApi)) && collected[kept - 1] ? cursorAfter(request, collected[kept - 1] as Collected) : undefined;
  const endNotice = read.repeated ? PAGING_REPEATED : unknownEndNotice(next !== undefined);
  const newest = shown[0];
  return {
    data: viewOf(request, shown),
    meta: {
      ...meta,
      ...(newest ? { as_of: newest.snapshot_at } : {}),
      covers: coversOf(covered, shown),
      truncated: cut || last !== undefined || cutByApi,
      // The API did not say whether older snapshots exist: has_more is left out, never false.
      ...(unknownTail && !cut
        ? { notice: [meta.notice, endNotice].filter(Boolean).join(' ') }
        : { has_more: next !== undefined || cutByApi }),
      ...(cutByApi
        ? { more_rows: `${remaining ?? 'The API holds older snapshots.'} Older snapshots than these cannot be read through this API.` }
        : {}),
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
              how_to_get_more: howToGetMore(
                budgetTokens,
                brief,
                next !== undefined,
                last && { kept: last.strikes.length, of: collected[kept - 1]?.snapshot.strikes.length },
              ),
            },
          }
        : {}),
    },
  };
}

/**
 * What the agent can do about a cut answer. Snapshots cut off are read on with the cursor;
 * strikes cut inside the last snapshot are not (the cursor reads older snapshots), so a cut
 * of strikes says how many were kept and that only another view or a larger budget shows them.
 */
function howToGetMore(
  budgetTokens: number,
  brief: boolean,
  withCursor: boolean,
  strikes: { kept: number; of: number | undefined } | undefined,
): string {
  if (!strikes) {
    return brief
      ? `Cut to the ${budgetTokens}-token budget: follow meta.next_cursor, or use view=levels.`
      : `Cut to fit the ${budgetTokens}-token result budget. Follow meta.next_cursor (ticker and cursor are enough), or use view=levels, a shorter from/to range or a lower limit.`;
  }
  const older = withCursor ? ' meta.next_cursor reads older snapshots.' : '';
  if (brief) return `Cut to the ${budgetTokens}-token budget, strikes too; no cursor reaches them: use view=levels.${older}`;
  return `Cut to fit the ${budgetTokens}-token result budget: ${strikes.kept > 0 ? `${strikes.kept} of ${strikes.of ?? 'its'} strikes kept (the strongest)` : `none of ${strikes.of ?? 'its'} strikes kept`}, and no cursor reaches the others; use view=levels, or ask the user to raise MARKET_DATA_RESULT_TOKENS.${older}`;
}

/**
 * The cursor right after `shown`. It carries the window asked for: one resolved here (the
 * newest session) is resolved again from the cursor's position, so following it walks on
 * into older sessions.
 */
function cursorAfter(request: DealerCall, shown: Collected): string {
  const { view, window, limit } = request;
  const { dataset, ticker } = request.query;
  const query: Record<string, string | number> = {
    view,
    ...(window.session ? { session_date: window.session } : {}),
    ...(window.from ? { from: window.from } : {}),
    ...(window.to ? { to: window.to } : {}),
    ...(limit ? { limit } : {}),
  };
  return encodePageCursor({
    o: dataset.operationId,
    ...(ticker ? { t: ticker } : {}),
    q: query,
    // Right after the last row of a page: start at the next upstream page, not re-read this one.
    ...positionOf(shown.after ?? shown.page),
    a: shown.snapshot.snapshot_at,
  });
}

/** The snapshots in the view asked. */
function viewOf(request: DealerCall, shown: DealerSnapshot[]): unknown {
  if (request.view === 'levels') return levelsOf(shown);
  if (request.view === 'sessions') return { session_summaries: summariseSessions(shown) };
  return shown;
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

function coversOf(window: DealerWindow, snapshots: DealerSnapshot[]): string {
  if (window.session) return `session ${window.session} (ET)`;
  if (window.from || window.to) return `${window.from ?? 'oldest'} to ${window.to ?? 'latest'}`;
  const sessions = [...new Set(snapshots.map((s) => s.session_date_et))];
  return sessions.length > 0 ? `session ${sessions.join(', ')} (ET)` : 'latest';
}
