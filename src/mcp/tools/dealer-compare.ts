/**
 * `derived_dealer_gex_compare`: dealer gamma levels, or one session's summary, of up to 10
 * tickers or a sector's largest names in one call ("which of these are in negative gamma?"
 * took a call per name). Each name is one call of the dealer history's own tool (its paging,
 * views and answers known empty: dataset-tool.ts), so the account gate paces them
 * and the cache serves repeats; a name that fails is reported beside the others' rows.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { DEALER_TICKER_PATTERN, type DealerSnapshot } from '../../catalog/index.js';
import { latestSession, previousTradingDay } from '../../catalog/market-calendar.js';
import { failedError, noneAnswered, type FailedPart } from './compare-failures.js';
import { requestCosts } from './request-costs.js';
import { progressReporter } from '../call-context.js';
import type { ToolDefinition } from '../tool.js';
import { READ_ONLY_API_TOOL } from './annotations.js';
import { FanOut, isRow, MAX_NAMES, num, parseNames, rowsOf, sectorNames, type FanOutDeps, type Row } from './fan-out.js';
import { advertisedSchema } from '../arguments/input-schema.js';
import { ownArguments } from '../arguments/own-arguments.js';
import { withinBudget } from '../answers/results.js';
import { asApiError, errorResult, invalidArguments } from '../answers/tool-errors.js';

export const DEALER_COMPARE_TOOL = 'derived_dealer_gex_compare';
const DEALER = 'derived.dealer_gex_history';
export const DEALER_COMPARE_DATASETS = [DEALER] as const;
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

const isSnapshot = (value: unknown): value is DealerSnapshot =>
  isRow(value) && typeof value['snapshot_at'] === 'string' && typeof value['spot_usd'] === 'number' && isRow(value['summary']);

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
  const snapshot = (Array.isArray(answer.data) ? answer.data : []).find(isSnapshot);
  return snapshot ? { row: levelsRow(ticker, snapshot) } : { ...(notice ? { notice } : {}) };
}

/** The description, with what a call spends at this upstream's page size (request-costs.ts). */
export function dealerCompareDescription(deps: FanOutDeps): string {
  return `Dealer gamma of up to 10 tickers or a sector's largest, most negative first: spot, flip, spot vs flip %, regime, walls (view=levels: newest snapshot, or session_date's close; sessions: one session's summary each). ${requestCosts(deps.tool.client, deps.datasets()).dealerCompare}`;
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
    handler: async (raw, ctx, call): Promise<CallToolResult> => {
      try {
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
        const fan = new FanOut(deps, call, progressReporter(ctx));
        const notices: string[] = [];
        let names = tickers ?? [];
        if (sector) {
          const listed = await sectorNames(fan, sector, 2 * MAX_NAMES);
          // The history takes 1 to 5 letters (the spec's pattern): a class share is not asked.
          const covered = listed.names.filter((t) => DEALER_TICKER_PATTERN.test(t));
          const skipped = listed.names.filter((t) => !DEALER_TICKER_PATTERN.test(t));
          names = covered.slice(0, MAX_NAMES);
          if (skipped.length > 0) notices.push(`Not covered by the dealer history (1 to 5 letters only): ${skipped.join(', ')}.`);
          if (covered.length > MAX_NAMES || listed.more)
            notices.push(`${sector}: its ${names.length} largest names; pass tickers for others.`);
        }
        const failures: FailedPart[] = [];
        const found = await Promise.all(
          names.map(async (ticker) => {
            try {
              const { row, notice } = await rowFor(fan, ticker, view, session);
              if (!row && notice) notices.push(`${ticker}: ${notice}`);
              return row;
            } catch (error) {
              failures.push({ name: ticker, error: asApiError(error) });
              return undefined;
            }
          }),
        );
        const rows = found.filter((r): r is Row => r !== undefined);
        if (rows.length === 0 && failures.length > 0 && failures.length === names.length)
          throw noneAnswered('Nothing was answered', failures, fan.spent()['units']);
        const failed = failures.map((f) => ({ ticker: f.name, error: failedError(f.error) }));
        const key = view === 'sessions' ? 'spot_vs_flip_close_pct' : 'spot_vs_flip_pct';
        rows.sort((a, b) => (num(a, key) ?? Infinity) - (num(b, key) ?? Infinity));
        const answer = {
          data: rows,
          ...(failed.length > 0 ? { failed } : {}),
          meta: {
            ...fan.spent(),
            covers: `${sector ? `sector ${sector}` : names.join(',')}; ${session ? `session ${session} (ET)` : 'newest snapshot'}`,
            truncated: false,
            sorted_by: `${key}, most negative gamma first`,
            ...(notices.length > 0 ? { notice: notices.join(' ') } : {}),
            ...(deps.tool.simulated ? { simulated: true } : {}),
          },
        };
        const fitted = await withinBudget(answer, deps.tool.resultTokens);
        return { content: [{ type: 'text', text: JSON.stringify(fitted) }], structuredContent: fitted };
      } catch (error) {
        return errorResult(asApiError(error));
      }
    },
  };
}
