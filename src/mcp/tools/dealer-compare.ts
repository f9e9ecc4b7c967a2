/**
 * `derived_dealer_gex_compare`: dealer gamma levels, or one session's summary, of up to 10
 * tickers or a sector's largest names in one call ("which of these are in negative gamma?"
 * took a call per name). Each name is one call of the dealer history's own tool (its paging,
 * views and answers known empty: dataset-tool.ts), so the account gate paces them
 * and the cache serves repeats; a name that fails is reported beside the others' rows.
 */
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import type { CallContext } from '../../api/call-context.js';
import * as z from 'zod';
import { DEALER_TICKER_PATTERN, type DealerSnapshot } from '../../catalog/index.js';
import { latestSession, previousTradingDay } from '../../catalog/market-calendar.js';
import { failedError, noneAnswered } from './compare-failures.js';
import { requestCosts } from './request-costs.js';
import { progressReporter } from '../call-context.js';
import type { ToolDefinition } from '../tool.js';
import { READ_ONLY_API_TOOL } from './annotations.js';
import { BY_SECTOR, fannedResult, FanOut, MAX_NAMES, num, parseNames, rowsOf, sectorNames, type FanOutDeps, type Row } from './fan-out.js';
import { advertisedSchema, type ToolArguments } from '../arguments/input-schema.js';
import { ownArguments } from '../arguments/own-arguments.js';
import { invalidArguments } from '../answers/tool-errors.js';
import { readSnapshot } from '../reading/dealer-snapshot.js';
import { knownReachRefusal, type FanOutReach, type ReachPart } from '../key-reach.js';

export const DEALER_COMPARE_TOOL = 'derived_dealer_gex_compare';
const DEALER = 'derived.dealer_gex_history';
export const DEALER_COMPARE_DATASETS = [DEALER] as const;
const LEVELS: ReachPart = { name: 'dealer gamma', datasets: DEALER_COMPARE_DATASETS };
/** What discover may put out of the key's reach: the dealer history, and a sector's names. */
export const DEALER_COMPARE_REACH: FanOutReach = { parts: [LEVELS], asked: [BY_SECTOR] };
const VIEWS = ['levels', 'sessions'] as const;
type View = (typeof VIEWS)[number];

const args = z.object({
  view: z.enum(VIEWS).optional(),
  session_date: z.iso.date().optional(),
});

/** The newest session the history holds a snapshot of: today's from its first 5-minute snapshot, else the one before. */
function newestDealerSession(now: number): string {
  const latest = latestSession(now);
  return now >= latest.openAt + 5 * 60_000 ? latest.date : previousTradingDay(latest.date);
}

const pct = (spot: number, flip: number): number => Math.round(((spot - flip) / flip) * 10_000) / 100;

/** One snapshot's levels, compact: what "is it in negative gamma, and how far from the flip" needs. */
function levelsRow(ticker: string, snapshot: DealerSnapshot): Row {
  const m = snapshot.summary;
  return {
    ticker,
    snapshot_at: snapshot.snapshot_at,
    state: snapshot.state,
    spot_usd: snapshot.spot_usd,
    gamma_flip_usd: m.gamma_flip_usd,
    spot_vs_flip_pct: pct(snapshot.spot_usd, m.gamma_flip_usd),
    regime: snapshot.spot_usd >= m.gamma_flip_usd ? 'positive_gamma' : 'negative_gamma',
    king_strike_usd: m.king_strike_usd,
    call_wall_usd: m.call_wall_strike_usd,
    put_wall_usd: m.put_wall_strike_usd,
    total_gex_usd_m: Math.round(m.total_gex_usd / 1e6),
  };
}

/**
 * The levels row of the first snapshot an answer's data holds, read by role (dealer-snapshot.ts):
 * its numbers as JSON numbers or numeric text, as an upstream writing its numbers as strings
 * sends them, never only in the form the dealer tool happens to answer today.
 */
export function levelsOf(ticker: string, data: unknown): Row | undefined {
  for (const row of rowsOf(data)) {
    const read = readSnapshot(row);
    if (read !== undefined && 'snapshot' in read) return levelsRow(ticker, read.snapshot);
  }
  return undefined;
}

/** One ticker's row, by the dealer history's own tool; undefined when it holds nothing for the session (the notice says why). */
async function rowFor(fan: FanOut, ticker: string, view: View, session: string | undefined): Promise<{ row?: Row; notice?: string }> {
  const answer =
    view === 'sessions'
      ? await fan.call(DEALER, { ticker, view: 'sessions', session_date: session })
      : session === undefined
        ? await fan.call(DEALER, { ticker })
        : await fan.call(DEALER, { ticker, view: 'full', session_date: session, limit: 1 });
  const notice = typeof answer.meta['notice'] === 'string' ? answer.meta['notice'] : undefined;
  if (view === 'sessions') {
    const summary = rowsOf(answer.data)[0];
    return summary ? { row: { ticker, ...summary } } : { ...(notice ? { notice } : {}) };
  }
  const row = levelsOf(ticker, answer.data);
  return row ? { row } : { ...(notice ? { notice } : {}) };
}

/** The description, with what a call spends at this upstream's page size (request-costs.ts). */
export function dealerCompareDescription(deps: FanOutDeps): string {
  return `Dealer gamma of up to 10 tickers or a sector's largest, most negative first: spot, flip, spot vs flip %, regime, walls (view=levels: newest snapshot, or session_date's close; sessions: one session's summary each). ${requestCosts(deps.tool.client, deps.datasets()).dealerCompare}`;
}

/** What a comparison asks, screened: tickers or a sector, the view, and the session (none: the newest snapshot). */
interface DealerAsk {
  readonly tickers: string[] | undefined;
  readonly sector: string | undefined;
  readonly view: View;
  readonly session: string | undefined;
}

/** Screen: the names, the view and the session, refused before anything is asked. */
function screenDealerAsk(raw: ToolArguments): DealerAsk {
  const given = ownArguments(raw, ['tickers', 'sector', 'view', 'session_date']);
  const { tickers, sector } = parseNames(given);
  const parsed = args.safeParse({ view: given['view'], session_date: given['session_date'] });
  if (!parsed.success)
    throw invalidArguments(
      `Invalid value for "${String(parsed.error.issues[0]?.path[0] ?? 'view')}".`,
      'view is levels or sessions; session_date is YYYY-MM-DD (ET).',
    );
  const view: View = parsed.data.view ?? 'levels';
  const session = parsed.data.session_date ?? (view === 'sessions' ? newestDealerSession(Date.now()) : undefined);
  return { tickers, sector, view, session };
}

/** Plan: the tickers given, or a sector's largest names the dealer history covers (at most MAX_NAMES), with notices of the rest. */
async function plannedNames(fan: FanOut, ask: DealerAsk, notices: string[]): Promise<string[]> {
  if (!ask.sector) return ask.tickers ?? [];
  const listed = await sectorNames(fan, ask.sector, 2 * MAX_NAMES);
  // The history takes 1 to 5 letters (the spec's pattern): a class share is not asked.
  const covered = listed.names.filter((t) => DEALER_TICKER_PATTERN.test(t));
  const skipped = listed.names.filter((t) => !DEALER_TICKER_PATTERN.test(t));
  const names = covered.slice(0, MAX_NAMES);
  if (skipped.length > 0) notices.push(`Not covered by the dealer history (1 to 5 letters only): ${skipped.join(', ')}.`);
  if (covered.length > MAX_NAMES || listed.more) notices.push(`${ask.sector}: its ${names.length} largest names; pass tickers for others.`);
  return names;
}

/** Read: each name's row at once; one that fails is kept in the fan's failures, one with nothing for the session leaves a notice. */
async function readRows(fan: FanOut, names: readonly string[], ask: DealerAsk, notices: string[]): Promise<Row[]> {
  const found = await Promise.all(
    names.map((ticker) =>
      fan.attempt(ticker, async () => {
        const { row, notice } = await rowFor(fan, ticker, ask.view, ask.session);
        if (!row && notice) notices.push(`${ticker}: ${notice}`);
        return row;
      }),
    ),
  );
  return found.filter((r): r is Row => r !== undefined);
}

/** Shape: most negative gamma first, the names that failed beside, and the call's meta. */
function shapeComparison(deps: FanOutDeps, fan: FanOut, ask: DealerAsk, names: readonly string[], rows: Row[], notices: string[]): Row {
  const failed = fan.failures.map((f) => ({ ticker: f.name, error: failedError(f.error) }));
  const key = ask.view === 'sessions' ? 'spot_vs_flip_close_pct' : 'spot_vs_flip_pct';
  rows.sort((a, b) => (num(a, key) ?? Infinity) - (num(b, key) ?? Infinity));
  return {
    data: rows,
    ...(failed.length > 0 ? { failed } : {}),
    meta: {
      ...fan.spent(),
      covers: `${ask.sector ? `sector ${ask.sector}` : names.join(',')}; ${ask.session ? `session ${ask.session} (ET)` : 'newest snapshot'}`,
      truncated: false,
      sorted_by: `${key}, most negative gamma first`,
      ...(notices.length > 0 ? { notice: notices.join(' ') } : {}),
      ...(deps.tool.simulated ? { simulated: true } : {}),
    },
  };
}

/** Screen → plan → read → shape → answer; nothing answered at all is one error naming each name's code. */
function compareDealers(deps: FanOutDeps, raw: ToolArguments, ctx: ServerContext, call: CallContext): Promise<CallToolResult> {
  return fannedResult(deps, async () => {
    const ask = screenDealerAsk(raw);
    // Refused as each name would be, before a sector's names are bought; and a sector the key cannot list.
    const refusal =
      knownReachRefusal(deps.tool.client, DEALER_COMPARE_TOOL, [LEVELS]) ??
      (ask.sector ? knownReachRefusal(deps.tool.client, DEALER_COMPARE_TOOL, [BY_SECTOR]) : undefined);
    if (refusal) throw refusal;
    const fan = new FanOut(deps, call, progressReporter(ctx));
    const notices: string[] = [];
    const names = await plannedNames(fan, ask, notices);
    const rows = await readRows(fan, names, ask, notices);
    if (rows.length === 0 && fan.failures.length > 0 && fan.failures.length === names.length)
      throw noneAnswered('Nothing was answered', fan.failures, fan.spent()['units']);
    return shapeComparison(deps, fan, ask, names, rows, notices);
  });
}

export function dealerCompareTool(deps: FanOutDeps): ToolDefinition {
  return {
    name: DEALER_COMPARE_TOOL,
    config: {
      title: 'Dealer gamma, several tickers',
      description: dealerCompareDescription(deps),
      inputSchema: advertisedSchema({
        type: 'object',
        properties: {
          tickers: { type: 'string', description: 'Up to 10, e.g. SPY,QQQ,IWM.' },
          sector: { type: 'string', description: 'Or a sector, e.g. Technology.' },
          view: { type: 'string', enum: [...VIEWS], description: 'Default levels.' },
          session_date: { type: 'string', description: 'YYYY-MM-DD; default the newest.' },
        },
        additionalProperties: false,
      }),
      annotations: READ_ONLY_API_TOOL,
    },
    handler: (raw, ctx, call) => compareDealers(deps, raw, ctx, call),
  };
}
