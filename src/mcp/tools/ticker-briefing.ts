/**
 * `ticker_briefing`: one name's squeeze check in one call (it took five): short interest,
 * the short-volume trend, the session's open-interest changes, the dark-pool share of the
 * day's volume and where implied volatility sits in its year. Each part is one call of its
 * dataset's own tool (fan-out.ts), through the client and its account gate; a part
 * that fails is listed in `failed` beside the others, and only a briefing with nothing in it
 * is an error.
 */
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import type { CallContext } from '../../api/call-context.js';
import { GENERAL_TICKER_PATTERN } from '../../catalog/index.js';
import { latestSession, previousTradingDay, shiftDate, toEt } from '../../catalog/market-calendar.js';
import { upstreamRoles } from '../../catalog/param-roles.js';
import { quoteValue } from '../../sanitize.js';
import { failedError, noneAnswered } from './compare-failures.js';
import { progressReporter } from '../call-context.js';
import type { ToolDefinition } from '../tool.js';
import { READ_ONLY_API_TOOL } from './annotations.js';
import { toolNameOf } from './dataset-tool.js';
import {
  fannedResult,
  FanOut,
  keptFields,
  num,
  readWhole,
  restOf,
  rowsOf,
  str,
  type FanOutDeps,
  type ReadOn,
  type Row,
  type ToolAnswer,
} from './fan-out.js';
import { ANOMALY, IV30, numberByRole, PERCENTILE, tickerOf } from '../reading/field-roles.js';
import { advertisedSchema, type ToolArguments } from '../arguments/input-schema.js';
import { ownArguments } from '../arguments/own-arguments.js';
import { requestCosts } from './request-costs.js';
import { refusalError } from '../answers/tool-errors.js';
import { apiError, type ApiError } from '../../api/errors.js';
import { knownReachRefusal, type FanOutReach } from '../key-reach.js';

export const BRIEFING_TOOL = 'ticker_briefing';
/** Each part by the name its answer and `failed` give it: one the key may call is enough for a briefing. */
export const BRIEFING_REACH: FanOutReach = {
  parts: [
    { name: 'short_interest', datasets: ['shorts.short_screener'] },
    { name: 'short_volume', datasets: ['shorts.volume_and_ratio'] },
    { name: 'open_interest', datasets: ['market.oi_change'] },
    { name: 'dark_pool', datasets: ['darkpool.by_ticker'] },
    { name: 'iv_rank', datasets: ['volatility.anomaly'] },
  ],
};
export const BRIEFING_DATASETS: readonly string[] = BRIEFING_REACH.parts.flatMap((part) => part.datasets);
/** Open-interest lines read for the sums and the largest lines. */
const OI_ROWS = 50;
/** Dark-pool prints read for the share: the largest page the tool takes. */
const PRINTS = 500;

const round = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;
const mean = (xs: readonly number[]): number | undefined => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);

/** Whether the upstream takes a page size for dark-pool prints: without one, `limit` would be read here over its pages. */
function printsPaged(fan: FanOut): boolean {
  const dataset = fan.dataset('darkpool.by_ticker');
  return dataset !== undefined && upstreamRoles(dataset).pageSize !== undefined;
}

/** The latest session whose close has passed: its daily figures (short volume) are out. */
function lastClosedSession(now: number): string {
  const latest = latestSession(now);
  return now >= latest.closeAt ? latest.date : previousTradingDay(latest.date);
}

function shortInterest(data: unknown, ticker: string): Row | undefined {
  const row = rowsOf(data).find((r) => tickerOf(r) === ticker);
  if (!row) return undefined;
  return keptFields(row, ['short_float_pct', 'days_to_cover', 'short_interest_shares', 'settlement_date']);
}

/** The latest day's short ratio and the trend of the last five days against the five before. */
function shortVolume(data: unknown): Row {
  const days = rowsOf(data)
    .filter((r) => str(r, 'date') !== undefined)
    .sort((a, b) => (str(b, 'date') ?? '').localeCompare(str(a, 'date') ?? ''));
  const ratio = (r: Row): number | undefined => num(r, 'short_ratio') ?? ratioOf(r);
  const recent = mean(days.slice(0, 5).flatMap((r) => ratio(r) ?? []));
  const before = mean(days.slice(5, 10).flatMap((r) => ratio(r) ?? []));
  const change = recent !== undefined && before !== undefined ? recent - before : undefined;
  const latest = days[0];
  return {
    ...(latest
      ? { date: latest['date'], short_ratio: ratio(latest), short_volume: latest['short_volume'], total_volume: latest['total_volume'] }
      : {}),
    ...(recent !== undefined ? { short_ratio_5d: round(recent, 4) } : {}),
    ...(before !== undefined ? { short_ratio_prior_5d: round(before, 4) } : {}),
    ...(change !== undefined ? { trend: change > 0.02 ? 'rising' : change < -0.02 ? 'falling' : 'flat' } : {}),
  };
}

function ratioOf(row: Row): number | undefined {
  const short = num(row, 'short_volume');
  const total = num(row, 'total_volume');
  return short !== undefined && total ? round(short / total, 4) : undefined;
}

/** Where implied volatility sits in its year: the measures read by role, as volatility_compare reads them. */
function ivRank(row: Row): Row {
  const read = {
    iv30: numberByRole(row, IV30),
    iv_percentile_1y: numberByRole(row, PERCENTILE),
    iv_zscore_1y: num(row, 'iv_zscore_1y'),
    anomaly_score: numberByRole(row, ANOMALY),
    session_date_et: str(row, 'session_date_et'),
  };
  return Object.fromEntries(Object.entries(read).filter(([, value]) => value !== undefined));
}

/** The session's open-interest changes of this name: calls against puts, and the largest lines. */
function openInterest(answer: ToolAnswer): Row {
  const rows = rowsOf(answer.data);
  const sum = (right: string): number => rows.filter((r) => str(r, 'right') === right).reduce((s, r) => s + (num(r, 'oi_change') ?? 0), 0);
  const largest = [...rows]
    .sort((a, b) => Math.abs(num(b, 'oi_change') ?? 0) - Math.abs(num(a, 'oi_change') ?? 0))
    .slice(0, 3)
    .map((r) => ({ contract: r['contract'], oi_change: num(r, 'oi_change') ?? r['oi_change'] }));
  return {
    ...(str(rows[0], 'session_date_et') ? { session_date_et: str(rows[0], 'session_date_et') } : {}),
    contracts: rows.length,
    net_call_change: sum('C'),
    net_put_change: sum('P'),
    largest,
    // The sums of the contracts read: the session's whole change only when nothing was left unread.
    complete: readWhole(answer),
  };
}

/** The prints of the session read, their shares, and that part of the day's volume. */
function darkPool(answer: { data: unknown; meta: Row }, session: string, volume: Row): Row {
  const prints = rowsOf(answer.data);
  const shares = prints.reduce((s, r) => s + (num(r, 'size', 'shares') ?? 0), 0);
  const total = volume['date'] === session ? num(volume, 'total_volume') : undefined;
  const complete = readWhole(answer);
  return {
    session_date_et: session,
    prints: prints.length,
    shares,
    notional_usd: prints.reduce((s, r) => s + (num(r, 'notional_usd') ?? 0), 0),
    // Over the newest prints only, the share is a floor: named so, not given as the day's.
    ...(total ? { [complete ? 'share_of_volume_pct' : 'share_of_volume_pct_at_least']: round((shares / total) * 100, 2) } : {}),
    // Only the newest prints when the session holds more than one page: the share is a floor then.
    complete,
  };
}

/** The description, with what a call spends (request-costs.ts). */
export function briefingDescription(deps: FanOutDeps): string {
  return `One name's squeeze check: short interest, short-volume trend, open-interest changes, dark-pool share of volume, IV rank. ${requestCosts(deps.tool.client, deps.datasets()).briefing}`;
}

/** Screen: the one name, refused before anything is asked. */
function screenTicker(raw: ToolArguments): string {
  const ticker = ownArguments(raw, ['ticker'])['ticker'];
  if (typeof ticker !== 'string' || ticker.length > 12 || !GENERAL_TICKER_PATTERN.test(ticker))
    throw refusalError({
      code: 'TICKER_INVALID',
      param: 'ticker',
      message: `Invalid ticker ${quoteValue(ticker)}.`,
      hint: 'Upper case, e.g. GME or BRK.B.',
    });
  return ticker;
}

/** Each part's answer, or undefined where it failed (the fan's failures say why). */
interface BriefingParts {
  readonly interest: ToolAnswer | undefined;
  readonly volume: ToolAnswer | undefined;
  readonly oi: ToolAnswer | undefined;
  readonly prints: ToolAnswer | undefined;
  readonly iv: ToolAnswer | undefined;
}

/** Each part's arguments to its dataset's tool: what it asks, and what a read on from its cursor asks again. */
interface PartArgs {
  readonly interest: Row;
  readonly volume: Row;
  readonly oi: Row;
  readonly prints: Row;
  readonly iv: Row;
}

/** Plan: each part's arguments. */
function partArgs(fan: FanOut, ticker: string, now: number, session: string): PartArgs {
  return {
    interest: { tickers: ticker },
    volume: { ticker, from: shiftDate(toEt(now).date, -21) },
    oi: { tickers: ticker, limit: OI_ROWS },
    // The largest page where the upstream takes a page size; its own page otherwise (each page a request).
    prints: { ticker, session_date: session, ...(printsPaged(fan) ? { limit: PRINTS } : {}) },
    iv: { ticker },
  };
}

/** Read: the five parts at once, each by its dataset's own tool. */
async function readParts(fan: FanOut, args: PartArgs): Promise<BriefingParts> {
  const part = (name: string, operationId: string, given: Row): Promise<ToolAnswer | undefined> =>
    fan.attempt(name, () => fan.call(operationId, given));
  const [interest, volume, oi, prints, iv] = await Promise.all([
    part('short_interest', 'shorts.short_screener', args.interest),
    part('short_volume', 'shorts.volume_and_ratio', args.volume),
    part('open_interest', 'market.oi_change', args.oi),
    part('dark_pool', 'darkpool.by_ticker', args.prints),
    part('iv_rank', 'volatility.anomaly', args.iv),
  ]);
  return { interest, volume, oi, prints, iv };
}

/**
 * A name no part knows: each part that failed said NOT_FOUND and each that answered holds
 * nothing for it. One NOT_FOUND error naming it then, not a briefing of empty sections
 * (zeros summed over no rows read as facts about a real name). A part read only in part
 * (more rows follow) and holding nothing for it counts only beside a NOT_FOUND of the
 * upstream's own: alone, its first pages are no proof that the name is unknown.
 */
function unknownTicker(ticker: string, parts: BriefingParts, fan: FanOut): ApiError | undefined {
  const notFound = fan.failures.filter((f) => f.error.code === 'NOT_FOUND');
  if (notFound.length !== fan.failures.length) return undefined;
  const { interest, volume, oi, prints, iv } = parts;
  const holdsNothing = (answer: ToolAnswer | undefined, nothing: (answer: ToolAnswer) => boolean): 'whole' | 'read' | undefined =>
    answer === undefined || !nothing(answer) ? undefined : readWhole(answer) ? 'whole' : 'read';
  const answered: [string, 'whole' | 'read' | undefined][] = [
    ['short_interest', holdsNothing(interest, (a) => shortInterest(a.data, ticker) === undefined)],
    ['short_volume', holdsNothing(volume, (a) => Object.keys(shortVolume(a.data)).length === 0)],
    ['open_interest', holdsNothing(oi, (a) => rowsOf(a.data).length === 0)],
    ['dark_pool', holdsNothing(prints, (a) => rowsOf(a.data).length === 0)],
    ['iv_rank', holdsNothing(iv, (a) => rowsOf(a.data)[0] === undefined)],
  ];
  const empty = answered.filter(([, how]) => how === 'whole').map(([name]) => name);
  const unread = answered.filter(([, how]) => how === 'read').map(([name]) => name);
  if (unread.length > 0 && notFound.length === 0) return undefined;
  if (empty.length + unread.length + notFound.length !== BRIEFING_REACH.parts.length) return undefined;
  const units = fan.spent()['units'];
  const spent = typeof units === 'number' && units > 0 ? `${units} unit${units === 1 ? '' : 's'} spent` : 'no unit spent';
  const said = [
    ...(notFound.length > 0 ? [`${notFound.map((f) => f.name).join(', ')} NOT_FOUND`] : []),
    ...(empty.length > 0 ? [`${empty.join(', ')} answered with nothing for it`] : []),
    ...(unread.length > 0 ? [`${unread.join(', ')} with nothing for it in the rows read`] : []),
  ];
  const first = notFound[0]?.error;
  return apiError('NOT_FOUND', {
    status: first?.status ?? null,
    message: `${ticker}: no part of the briefing knows this ticker (${said.join('; ')}); ${spent}.`,
    hint: 'Do not retry; check the symbol (e.g. GME or BRK.B).',
    recoverable: false,
    docsUrl: first?.docsUrl,
    requestId: first?.requestId ?? null,
    local: notFound.every((f) => f.error.local),
    charged: typeof units === 'number' && units > 0,
  });
}

/** What the briefing's shaping gives the answer beside its data: notices, and how to read on where a part stopped. */
interface Said {
  readonly notices: string[];
  readonly readOn: (ReadOn & { part: string })[];
}

/** The rest of a part not read whole, said in `said`'s notices and read_on; its words for the notice. */
function restSaid(said: Said, part: string, answer: ToolAnswer, operationId: string, args: Row): string {
  const rest = restOf(answer, toolNameOf({ operationId }), args);
  if (rest.readOn) said.readOn.push({ part, ...rest.readOn });
  return rest.said;
}

/** Shape: one section per part answered, a notice where a part answered without this name or only in part. */
function briefingData(ticker: string, session: string, parts: BriefingParts, args: PartArgs, said: Said): Row {
  const { interest, volume, oi, prints, iv } = parts;
  const volumeRow = volume ? shortVolume(volume.data) : {};
  const ivRow = iv ? rowsOf(iv.data)[0] : undefined;
  const si = interest ? shortInterest(interest.data, ticker) : undefined;
  if (interest && !si)
    said.notices.push(
      readWhole(interest)
        ? `${ticker} has no short-interest row (funds and indices are not in the disclosure).`
        : `No short-interest row for ${ticker} in the rows read; ${restSaid(said, 'short_interest', interest, 'shorts.short_screener', args.interest)}.`,
    );
  // No contracts read: no section of sums over nothing, which would read as a session of no change.
  const oiRead = oi !== undefined && rowsOf(oi.data).length > 0;
  if (oi && !readWhole(oi))
    said.notices.push(
      oiRead
        ? `Open-interest sums are of the ${rowsOf(oi.data).length} contracts read; ${restSaid(said, 'open_interest', oi, 'market.oi_change', args.oi)}.`
        : `No open-interest change for ${ticker} in the rows read; ${restSaid(said, 'open_interest', oi, 'market.oi_change', args.oi)}.`,
    );
  else if (oi && !oiRead) said.notices.push(`${ticker} has no open-interest change in the session read.`);
  if (prints && !readWhole(prints))
    said.notices.push(
      `Dark-pool figures are of the ${rowsOf(prints.data).length} newest prints read; ${restSaid(said, 'dark_pool', prints, 'darkpool.by_ticker', args.prints)}.`,
    );
  return {
    ticker,
    ...(si ? { short_interest: si } : {}),
    ...(volume ? { short_volume: volumeRow } : {}),
    ...(oi && oiRead ? { open_interest_change: openInterest(oi) } : {}),
    ...(prints ? { dark_pool: darkPool(prints, session, volumeRow) } : {}),
    ...(ivRow ? { iv_rank: ivRank(ivRow) } : {}),
  };
}

/** What the briefing's answer covers: the name, and the session only where a part of that session was answered. */
function coversOf(ticker: string, session: string, parts: BriefingParts): string {
  const ofSession = [parts.prints ? 'dark pool' : '', parts.volume ? 'short volume' : ''].filter(Boolean);
  return ofSession.length > 0 ? `${ticker}; ${ofSession.join(' and ')} of session ${session} (ET)` : ticker;
}

/** Screen → read → shape → answer; a briefing with nothing in it is one error naming each part's code. */
function brief(deps: FanOutDeps, raw: ToolArguments, ctx: ServerContext, call: CallContext): Promise<CallToolResult> {
  return fannedResult(deps, async () => {
    const ticker = screenTicker(raw);
    const refusal = knownReachRefusal(deps.tool.client, BRIEFING_TOOL, BRIEFING_REACH.parts);
    if (refusal) throw refusal;
    const now = Date.now();
    const session = lastClosedSession(now);
    const fan = new FanOut(deps, call, progressReporter(ctx));
    const args = partArgs(fan, ticker, now, session);
    const parts = await readParts(fan, args);
    const unknown = unknownTicker(ticker, parts, fan);
    if (unknown) throw unknown;
    if (fan.failures.length === BRIEFING_DATASETS.length) throw noneAnswered('Nothing was answered', fan.failures, fan.spent()['units']);
    const failed = fan.failures.map((f) => ({ part: f.name, error: failedError(f.error) }));
    const said: Said = { notices: [], readOn: [] };
    const data = briefingData(ticker, session, parts, args, said);
    // Nothing but the name, and parts failed: the ones that answered hold nothing for it. Where
    // one was read only in part and says how to read on (meta.read_on), that is the answer.
    if (Object.keys(data).length === 1 && fan.failures.length > 0 && said.readOn.length === 0) {
      const answered = said.notices.map((n) => n.replace(/\.$/, '')).join('; ');
      throw noneAnswered(
        `Nothing for ${ticker}${answered ? `; ${answered}; the other parts failed` : ''}`,
        fan.failures,
        fan.spent()['units'],
      );
    }
    return {
      data,
      ...(failed.length > 0 ? { failed } : {}),
      meta: {
        ...fan.spent(),
        covers: coversOf(ticker, session, parts),
        // A part whose figures need all its rows (a name looked up, sums) read only in part: the briefing holds what was read of it.
        truncated: [parts.interest, parts.oi, parts.prints].some((part) => part !== undefined && !readWhole(part)),
        ...(said.notices.length > 0 ? { notice: said.notices.join(' ') } : {}),
        ...(said.readOn.length > 0 ? { read_on: said.readOn } : {}),
        ...(deps.tool.simulated ? { simulated: true } : {}),
      },
    };
  });
}

export function tickerBriefingTool(deps: FanOutDeps): ToolDefinition {
  return {
    name: BRIEFING_TOOL,
    config: {
      title: 'Single-name briefing: shorts, flows, volatility',
      description: briefingDescription(deps),
      inputSchema: advertisedSchema({
        type: 'object',
        properties: { ticker: { type: 'string', description: 'e.g. GME.' } },
        required: ['ticker'],
        additionalProperties: false,
      }),
      annotations: READ_ONLY_API_TOOL,
    },
    handler: (raw, ctx, call) => brief(deps, raw, ctx, call),
  };
}
