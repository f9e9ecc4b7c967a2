/**
 * `volatility_compare`: skew and volatility anomaly for up to 10 tickers, or the largest
 * names of a sector, in one call. The per-ticker datasets are asked through the same
 * client, so the account gate paces the fan-out and the cache serves repeats; a ticker
 * that fails is reported beside the others' rows, never failing the whole answer.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { CallContext } from '../../api/call-context.js';
import type { ApiResult, MarketDataClient } from '../../api/client.js';
import { knownScopeRefusal } from '../arguments/scope.js';
import { partDeadlinePassed } from '../../api/deadline-error.js';
import { ApiError } from '../../api/errors.js';
import { rowsIn } from '../../api/payload-parts.js';
import { rowsLeftOut, type ResultMeta } from '../../api/result-meta.js';
import type { DatasetDefinition } from '../../catalog/index.js';
import { advertisedSchema } from '../arguments/input-schema.js';
import { ownArguments } from '../arguments/own-arguments.js';
import { withinBudget } from '../answers/results.js';
import { asApiError, errorResult, invalidArguments, refusalError } from '../answers/tool-errors.js';
import { failureEntry, noneAnswered, type CompareFailure } from './compare-failures.js';
import { BY_SECTOR, parseNames, SECTOR_DIRECTORY } from './fan-out.js';
import { knownReachRefusal, type FanOutReach, type ReachPart } from '../key-reach.js';
import { validateToolArguments } from '../arguments/screen.js';
import { READ_ONLY_API_TOOL } from './annotations.js';
import { requestCosts } from './request-costs.js';
import type { ToolDefinition } from '../tool.js';
import { ANOMALY, ATM_IV30, IV30, numberByRole, PERCENTILE, RR25, textByRole, tickerOf } from '../reading/field-roles.js';

export const COMPARE_TOOL = 'volatility_compare';
/** The toolset it is offered with (--toolsets volatility), as the datasets it reads. */
export const COMPARE_TOOLSET = 'volatility';
/**
 * The datasets the tool reads for its measures, so the scopes it needs are theirs: it is
 * offered only where at least one of them is (a key without read:volatility, hidden by
 * --hide-inaccessible, hides this tool too).
 */
export const COMPARE_DATASETS = ['volatility.risk_reversal_skew', 'volatility.anomaly'] as const;
const SKEW: ReachPart = { name: 'skew', datasets: ['volatility.risk_reversal_skew'] };
const ANOMALY_PART: ReachPart = { name: 'anomaly', datasets: ['volatility.anomaly'] };
/** Its measures, either of which gives a row, and a sector's names (key-reach.ts). */
export const COMPARE_REACH: FanOutReach = { parts: [SKEW, ANOMALY_PART], asked: [BY_SECTOR] };
const MAX_TICKERS = 10;
const MEASURES = ['skew', 'anomaly', 'both'] as const;
type Measure = (typeof MEASURES)[number];

export interface CompareDeps {
  client: MarketDataClient;
  datasets: () => readonly DatasetDefinition[];
  resultTokens: number;
  simulated: boolean;
}

type Row = Record<string, unknown>;
const num = numberByRole;
const DATE = { aliases: ['date', 'session_date', 'trade_date', 'as_of', 'timestamp'], words: [['date'], ['day']] };
const isRow = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);
/**
 * The rows of a payload: a list, the list a wrapper holds, or one record, bare or under
 * `rows` as some upstreams wrap even a single object (`{data: {rows: {...}}}`).
 */
const rowsOf = (data: unknown): Row[] => {
  const listed = rowsIn(data);
  if (listed) return listed.filter(isRow);
  if (!isRow(data)) return [];
  const inner = data['rows'];
  return Object.keys(data).length === 1 && isRow(inner) ? [inner] : [data];
};

const measureArg = z.enum(MEASURES).optional();

/** The names as every tool over several names takes them (fan-out.ts), and the measures asked. */
function parseArgs(raw: Record<string, unknown>): { tickers: string[] | undefined; sector: string | undefined; measure: Measure } {
  const cleaned = ownArguments(raw, ['tickers', 'sector', 'measure']);
  const names = parseNames(cleaned);
  const measure = measureArg.safeParse(cleaned['measure']);
  if (!measure.success) throw invalidArguments('Invalid value for "measure".', 'One of: skew, anomaly, both.');
  return { ...names, measure: measure.data ?? 'both' };
}

/**
 * What the answers read say together, as every tool's meta says it for one: the upstream
 * requests spent (units; a cached answer costs none), their ids for support, and the
 * lowest rate and quota left any of them reported.
 */
function readMeta(read: readonly ResultMeta[]): Record<string, unknown> {
  const ids = [...new Set(read.map((m) => m.request_id).filter((id): id is string => id !== undefined))];
  const lowest = (values: (number | undefined)[]): number | undefined => {
    const known = values.filter((v): v is number => v !== undefined);
    return known.length > 0 ? Math.min(...known) : undefined;
  };
  const rate = lowest(read.map((m) => m.rate_limit_remaining));
  const quota = lowest(read.map((m) => m.quota_remaining));
  return {
    units: read.filter((m) => !m.cache_hit).length,
    ...(ids[0] !== undefined ? { request_id: ids[0] } : {}),
    ...(ids.length > 1 ? { request_ids: ids } : {}),
    ...(rate !== undefined ? { rate_limit_remaining: rate } : {}),
    ...(quota !== undefined ? { quota_remaining: quota } : {}),
  };
}

type Ask = (dataset: DatasetDefinition, given: Record<string, unknown>) => Promise<ApiResult>;

/**
 * Asks one dataset as its own tool would (arguments checked, a scope discover said the
 * key lacks refused here) within the call's one deadline, noting each answer's meta in `read`.
 */
function askerFor(deps: CompareDeps, call: CallContext, read: ResultMeta[]): Ask {
  return async (dataset, given) => {
    const checked = validateToolArguments(dataset, given);
    if (!checked.ok) throw refusalError(checked.refusal);
    const outOfScope = knownScopeRefusal(deps.client, dataset.operationId);
    if (outOfScope) throw outOfScope;
    // One deadline for the whole call: the sector lookup and the fan-out share it.
    const left = call.deadline - Date.now();
    if (left <= 0) throw partDeadlinePassed('ticker');
    const answer = await deps.client.dataset(dataset, checked.ticker, checked.query, { call, deadlineMs: left });
    read.push(answer.meta);
    return answer;
  };
}

/**
 * A sector's largest names from the first page of the sector directory, at most MAX_TICKERS,
 * and a notice when there are more: a page that says more follow is not the whole sector, so
 * its count is not given as the sector's.
 */
async function sectorNames(sector: string, deps: CompareDeps, ask: Ask, notices: string[]): Promise<string[]> {
  const directory = deps.datasets().find((d) => d.operationId === SECTOR_DIRECTORY);
  if (!directory) throw invalidArguments('The sector directory is not offered by this server.', 'Pass tickers instead.');
  const answer = await ask(directory, { sector });
  const listed = rowsOf(answer.data)
    .map((r) => tickerOf(r))
    .filter((t): t is string => t !== undefined);
  const more = answer.meta.next_page !== undefined || rowsLeftOut(answer.meta);
  const taken = Math.min(MAX_TICKERS, listed.length);
  if (more || answer.meta.end_unknown === true)
    notices.push(
      `${sector}: its ${taken} largest names (the directory ${more ? 'lists' : 'may list'} more than the ${listed.length} read); pass tickers for others.`,
    );
  else if (listed.length > MAX_TICKERS)
    notices.push(`${sector}: the ${MAX_TICKERS} largest of ${listed.length} names; pass tickers for others.`);
  return listed.slice(0, MAX_TICKERS);
}

/** What one measure gave a ticker's row, and the primary values it should have given and did not. */
interface MeasureValues {
  values: Row;
  missing: string[];
}

/** The skew series: the latest rr25, its change over 5 sessions, and the 30-day ATM volatility. */
function skewValues(data: unknown): MeasureValues {
  const dateOf = (r: Row): string => textByRole(r, DATE) ?? '';
  // Only rows that hold the measure: a row of another kind in the series is not its latest value.
  const series = rowsOf(data)
    .filter((r) => num(r, RR25) !== undefined)
    .sort((x, y) => dateOf(y).localeCompare(dateOf(x)));
  const now = num(series[0], RR25);
  const before = num(series[5], RR25);
  return {
    values: {
      date: series[0] ? textByRole(series[0], DATE) : undefined,
      rr25: now,
      ...(now !== undefined && before !== undefined ? { rr25_5d_change: Math.round((now - before) * 1e4) / 1e4 } : {}),
      atm_iv30: num(series[0], ATM_IV30),
    },
    missing: now === undefined ? ['rr25'] : [],
  };
}

/** The anomaly answer: its score, the 1-year IV percentile and the 30-day IV. */
function anomalyValues(data: unknown): MeasureValues {
  const scored = rowsOf(data);
  const score = scored.find((r) => num(r, ANOMALY) !== undefined) ?? scored[0];
  const anomalyScore = num(score, ANOMALY);
  return {
    values: { anomaly_score: anomalyScore, iv_percentile_1y: num(score, PERCENTILE), iv30: num(score, IV30) },
    missing: anomalyScore === undefined ? ['anomaly_score'] : [],
  };
}

/** One ticker's outcome: its row (or none), the measures that failed, the fields it could not read. */
interface TickerOutcome {
  row: Row | undefined;
  failures: CompareFailure[];
  unread: { ticker: string; fields: string[] } | undefined;
  /** Every measure asked failed: the first failure. */
  wholeFailure: ApiError | undefined;
}

async function compareTicker(
  ticker: string,
  measures: { skew: DatasetDefinition | undefined; anomaly: DatasetDefinition | undefined },
  ask: Ask,
): Promise<TickerOutcome> {
  const asked = [
    { measure: 'skew' as const, dataset: measures.skew, read: skewValues },
    { measure: 'anomaly' as const, dataset: measures.anomaly, read: anomalyValues },
  ].flatMap(({ dataset, ...m }) => (dataset ? [{ ...m, dataset }] : []));
  const settled = await Promise.allSettled(asked.map((m) => ask(m.dataset, { ticker })));
  const row: Row = { ticker };
  const errors: { measure: 'skew' | 'anomaly'; error: ApiError }[] = [];
  const missing: string[] = [];
  settled.forEach((outcome, index) => {
    const m = asked[index];
    if (!m) return;
    if (outcome.status === 'rejected') {
      errors.push({ measure: m.measure, error: asApiError(outcome.reason) });
      return;
    }
    const { values, missing: notRead } = m.read(outcome.value.data);
    Object.assign(row, values);
    missing.push(...notRead);
  });
  const unread = missing.length > 0 ? { ticker, fields: missing } : undefined;
  const first = errors[0];
  // Every measure failed: the ticker goes whole into `failed`.
  if (first && errors.length === asked.length)
    return { row: undefined, failures: [failureEntry(ticker, first.error)], unread, wholeFailure: first.error };
  // One measure answered: its row is kept, the other measure's failure beside it.
  const failures = errors.map((e) => failureEntry(ticker, e.error, e.measure));
  // Nothing of any measure could be read: named in `unread`, not answered as a row of only its ticker.
  const values = Object.entries(row).filter(([name, v]) => name !== 'ticker' && name !== 'date' && v !== undefined);
  return { row: values.length > 0 ? row : undefined, failures, unread, wholeFailure: undefined };
}

/** The tickers' rows as one answer, sorted by the measure asked, with what failed and what could not be read beside them. */
function compareAnswer(
  outcomes: readonly TickerOutcome[],
  names: readonly string[],
  given: { sector: string | undefined; measure: Measure },
  read: readonly ResultMeta[],
  notices: string[],
  simulated: boolean,
): Record<string, unknown> {
  const ok = outcomes.flatMap((o) => (o.row ? [o.row] : []));
  const failures = outcomes.flatMap((o) => o.failures);
  const unread = outcomes.flatMap((o) => (o.unread ? [o.unread] : []));
  const wholeFailures = outcomes.flatMap((o, i) => (o.wholeFailure ? [{ name: names[i] ?? '', error: o.wholeFailure }] : []));
  // Nothing came back: an error the agent acts on (code, hint, retry), saying what happened to each ticker.
  if (ok.length === 0 && wholeFailures.length > 0 && unread.length === 0)
    throw noneAnswered(`None of the ${wholeFailures.length} tickers was answered`, wholeFailures, read.filter((m) => !m.cache_hit).length);
  if (unread.length > 0)
    notices.push(
      `Answered, but not read as numbers (field absent, or neither a number nor numeric text): ${unread
        .map((u) => `${u.ticker} ${u.fields.join(' and ')}`)
        .join(', ')}.`,
    );
  const byAnomaly = given.measure === 'anomaly';
  const key = byAnomaly ? 'anomaly_score' : 'rr25';
  const sign = byAnomaly ? -1 : 1;
  ok.sort((x, y) => sign * ((num(x, [key]) ?? Infinity) - (num(y, [key]) ?? Infinity)));
  return {
    data: ok.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined))),
    ...(failures.length > 0 ? { failed: failures } : {}),
    ...(unread.length > 0 ? { unread } : {}),
    meta: {
      ...readMeta(read),
      covers: given.sector ? `sector ${given.sector}` : names.join(','),
      truncated: false,
      ...(notices.length > 0 ? { notice: notices.join(' ') } : {}),
      sorted_by: byAnomaly ? 'anomaly_score, most unusual first' : 'rr25, steepest put skew (most negative) first',
      ...(simulated ? { simulated: true } : {}),
    },
  };
}

export function volatilityCompareTool(deps: CompareDeps): ToolDefinition {
  return {
    name: COMPARE_TOOL,
    config: {
      title: 'Skew and volatility anomaly, several tickers',
      description: `Skew (rr25 and its 5-day change) and volatility anomaly of up to 10 tickers or the 10 largest of a sector, steepest put skew first. ${requestCosts(deps.client, deps.datasets()).volatilityCompare}`,
      inputSchema: advertisedSchema({
        type: 'object',
        properties: {
          tickers: { type: 'string', description: 'Up to 10, comma-separated, e.g. AAPL,MSFT.' },
          sector: { type: 'string', description: 'Or a sector, e.g. Technology.' },
          measure: { type: 'string', enum: [...MEASURES], description: 'Default both.' },
        },
        additionalProperties: false,
      }),
      annotations: READ_ONLY_API_TOOL,
    },
    handler: async (raw, _ctx, call): Promise<CallToolResult> => {
      try {
        const { tickers, sector, measure } = parseArgs(raw);
        // Refused as every ticker would be, before a sector's names are bought; and a sector the key cannot list.
        const measured = measure === 'skew' ? [SKEW] : measure === 'anomaly' ? [ANOMALY_PART] : [SKEW, ANOMALY_PART];
        const refusal =
          knownReachRefusal(deps.client, COMPARE_TOOL, measured) ??
          (sector ? knownReachRefusal(deps.client, COMPARE_TOOL, [BY_SECTOR]) : undefined);
        if (refusal) throw refusal;
        const read: ResultMeta[] = [];
        const notices: string[] = [];
        const ask = askerFor(deps, call, read);
        const names = sector ? await sectorNames(sector, deps, ask, notices) : (tickers ?? []);
        const find = (id: string): DatasetDefinition | undefined => deps.datasets().find((d) => d.operationId === id);
        const measures = {
          skew: measure !== 'anomaly' ? find('volatility.risk_reversal_skew') : undefined,
          anomaly: measure !== 'skew' ? find('volatility.anomaly') : undefined,
        };
        const outcomes = await Promise.all(names.map((ticker) => compareTicker(ticker, measures, ask)));
        const answer = compareAnswer(outcomes, names, { sector, measure }, read, notices, deps.simulated);
        const fitted = await withinBudget(answer, deps.resultTokens);
        return { content: [{ type: 'text', text: JSON.stringify(fitted) }], structuredContent: fitted };
      } catch (error) {
        return errorResult(asApiError(error));
      }
    },
  };
}
