/**
 * What the tools over several names share: one deadline for the whole call, each dataset
 * called as a unit through its own tool's stages (screen, read, answer: callDataset in
 * dataset-tool.ts), every request through the client and its account gate with the
 * call's own context, a sector's largest names from the sector directory, and the meta of
 * everything read. A part that fails is the caller's to report beside the others' data.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { CallContext } from '../../api/call-context.js';
import type { ProgressEvent } from '../../api/client.js';
import { apiError } from '../../api/errors.js';
import { partDeadlinePassed } from '../../api/deadline-error.js';
import { numberOf } from '../../api/paging-evidence.js';
import { SECTORS, TICKER_LIST, type DatasetDefinition } from '../../catalog/index.js';
import { quoteValue } from '../../sanitize.js';
import { withinBudget } from '../answers/results.js';
import { asApiError, errorResult, invalidArguments, refusalError } from '../answers/tool-errors.js';
import type { ReachPart } from '../key-reach.js';
import type { FailedPart } from './compare-failures.js';
import { callDataset, type ToolDeps } from './dataset-tool.js';
import { tickerOf } from '../reading/field-roles.js';

/** Names one call covers at most: the account's 60 requests a minute stay with the agent's other work. */
export const MAX_NAMES = 10;

export type Row = Record<string, unknown>;
export const isRow = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);
/** The first of `names` the row has as a number: a JSON number or numeric text, as an upstream writing its numbers as strings sends them. */
export const num = (row: Row | undefined, ...names: string[]): number | undefined => {
  for (const name of names) {
    const value = numberOf(row?.[name]);
    if (value !== undefined) return value;
  }
  return undefined;
};
export const str = (row: Row | undefined, ...names: string[]): string | undefined => {
  for (const name of names) if (typeof row?.[name] === 'string') return row[name];
  return undefined;
};

/** A tool answer's data and meta, as the agent would have read them. */
export interface ToolAnswer {
  data: unknown;
  meta: Row;
}

export interface FanOutDeps {
  /** What a dataset tool needs; its result budget is raised here, as the rows are summarised before anything is shown. */
  tool: ToolDeps;
  datasets: () => readonly DatasetDefinition[];
}

/** A budget no summarised part reaches: the parts are read whole, then cut to what the answer shows. */
const PART_TOKENS = 200_000;

export class FanOut {
  /** The meta of every answer read, for the call's own. */
  readonly read: Row[] = [];
  /** The parts that failed, in the order they failed: the caller reports them beside the others' data. */
  readonly failures: FailedPart[] = [];

  /**
   * `call` is the tool call's own context: its caller, cancellation and deadline bound every
   * part, and what each part costs is added to its record (the audit line's units).
   */
  constructor(
    private readonly deps: FanOutDeps,
    private readonly context: CallContext,
    private readonly onProgress?: ((event: ProgressEvent) => void) | undefined,
  ) {}

  dataset(operationId: string): DatasetDefinition | undefined {
    return this.deps.datasets().find((d) => d.operationId === operationId);
  }

  /** One dataset tool's answer for `args`; throws its error (a local refusal, the API's, the deadline's). */
  async call(operationId: string, args: Row): Promise<ToolAnswer> {
    const dataset = this.dataset(operationId);
    if (!dataset)
      throw apiError('NOT_FOUND', {
        status: null,
        message: `The dataset ${operationId} is not offered by this server (not in the upstream's document, or hidden).`,
        hint: 'Use the tools listed by tools/list.',
        local: true,
      });
    const left = this.context.deadline - Date.now();
    if (left <= 0) throw partDeadlinePassed('name');
    // The whole call's deadline bounds each part; the caller's cancellation still reaches them.
    // The part shares the call's caller, deadline and record: only its signal is its own.
    const timeout = AbortSignal.timeout(left);
    const part: CallContext = { ...this.context, signal: AbortSignal.any([this.context.signal, timeout]) };
    let result: CallToolResult;
    try {
      result = await callDataset(dataset, args, { ...this.deps.tool, resultTokens: PART_TOKENS, call: part, onProgress: this.onProgress });
    } catch (error) {
      // Out already: what it cost is not known, so no charge is claimed either way.
      if (timeout.aborted && !this.context.signal.aborted) throw partDeadlinePassed('name', true);
      throw asApiError(error, this.deps.tool.log, operationId);
    }
    const content = result.structuredContent;
    const meta = isRow(content) ? content['meta'] : undefined;
    if (!isRow(content) || !isRow(meta)) throw apiError('INTERNAL_ERROR', { status: null, local: true });
    this.read.push(meta);
    return { data: content['data'], meta };
  }

  /** `read`'s answer, or undefined when it failed: its error is kept in `failures` under `name`. */
  async attempt<T>(name: string, read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      this.failures.push({ name, error: asApiError(error) });
      return undefined;
    }
  }

  /** Requests spent (a cached part costs none), their ids, and the lowest rate and quota left any answer reported. */
  spent(): Row {
    const ids = [...new Set(this.read.flatMap((m) => (typeof m['request_id'] === 'string' ? [m['request_id']] : [])))];
    const lowest = (name: string): number | undefined => {
      const known = this.read.map((m) => m[name]).filter((v): v is number => typeof v === 'number');
      return known.length > 0 ? Math.min(...known) : undefined;
    };
    const rate = lowest('rate_limit_remaining');
    const quota = lowest('quota_remaining');
    return {
      units: this.read.reduce((sum, m) => sum + (typeof m['units'] === 'number' ? m['units'] : 0), 0),
      ...(ids[0] !== undefined ? { request_id: ids[0] } : {}),
      ...(ids.length > 1 ? { request_ids: ids } : {}),
      ...(rate !== undefined ? { rate_limit_remaining: rate } : {}),
      ...(quota !== undefined ? { quota_remaining: quota } : {}),
    };
  }
}

/**
 * Whether a part's answer holds all the upstream has for the question: only where its
 * `has_more` says false. True is more rows; left out is an end the upstream never showed
 * (a list read here over its pages and stopped, one with no total and no flag). A cut inside
 * rows alone (a long text) leaves has_more false: no row is missing. Over a part not read
 * whole, a name missing from it is not a name with nothing, and sums are sums of what was read.
 */
export function readWhole(answer: ToolAnswer): boolean {
  return answer.meta['has_more'] === false;
}

/** How to read on where a part stopped: its tool, and the arguments to call it with (its own, and the cursor). */
export interface ReadOn {
  tool: string;
  arguments: Row;
}

/**
 * What a part not read whole says of the rest, and how to read on: the tool with its own
 * arguments and the part's cursor (the same call again would read the same first pages), as
 * arguments an agent passes whole rather than a cursor cut out of a sentence.
 */
export function restOf(answer: ToolAnswer, tool: string, args: Row): { said: string; readOn?: ReadOn } {
  const holds = answer.meta['has_more'] === true ? 'the upstream holds more' : 'the upstream may hold more';
  const cursor = answer.meta['next_cursor'];
  return typeof cursor === 'string'
    ? { said: `${holds} (meta.read_on)`, readOn: { tool, arguments: { ...args, cursor } } }
    : { said: `${holds}, not reachable from here` };
}

/** The fields of `row` named, numbers as numbers whether the upstream sent them so or as numeric text. */
export function keptFields(row: Row, names: readonly string[]): Row {
  return Object.fromEntries(names.filter((k) => k in row).map((k) => [k, num(row, k) ?? row[k]]));
}

/** The rows of a tool answer's data: a list, or the list a wrapper holds. */
export function rowsOf(data: unknown): Row[] {
  if (Array.isArray(data)) return data.filter(isRow);
  if (!isRow(data)) return [];
  const list = Object.values(data).find(Array.isArray);
  return Array.isArray(list) ? list.filter(isRow) : [data];
}

const namesArgs = z.object({ tickers: z.string().max(200).optional(), sector: z.enum(SECTORS).optional() });

/** `tickers` (up to 10, comma-separated) or `sector`: one of them. */
export function parseNames(
  args: Row,
  options: { sectorOnly?: boolean } = {},
): { tickers: string[] | undefined; sector: string | undefined } {
  const parsed = namesArgs.safeParse({ tickers: args['tickers'] ?? undefined, sector: args['sector'] ?? undefined });
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? 'arguments');
    throw invalidArguments(
      `Invalid value for "${field}".`,
      field === 'sector' ? `One of: ${SECTORS.join(', ')}.` : 'Comma-separated tickers.',
    );
  }
  const { tickers, sector } = parsed.data;
  if (options.sectorOnly) {
    if (!sector) throw invalidArguments('Give a sector.', `One of: ${SECTORS.join(', ')}.`);
    return { tickers: undefined, sector };
  }
  if (!tickers === !sector)
    throw invalidArguments('Give tickers or sector (one of them).', 'e.g. tickers="SPY,QQQ,IWM" or sector="Technology".');
  if (!tickers) return { tickers: undefined, sector };
  const list = [...new Set(tickers.split(',').map((t) => t.trim()))];
  if (list.length > MAX_NAMES)
    throw invalidArguments(
      `${list.length} tickers: at most ${MAX_NAMES} in one call.`,
      `Split the list into calls of ${MAX_NAMES} or fewer.`,
    );
  if (!TICKER_LIST.test(list.join(',')))
    throw refusalError({
      code: 'TICKER_INVALID',
      param: 'tickers',
      message: `Invalid ticker in ${quoteValue(tickers)}.`,
      hint: 'Upper case, comma-separated, e.g. AAPL,BRK.B.',
    });
  return { tickers: list, sector: undefined };
}

/** The sector directory: a sector's names, largest first. */
export const SECTOR_DIRECTORY = 'stocks.sector_tickers';
/** What `sector=` reads before anything else (key-reach.ts). */
export const BY_SECTOR: ReachPart = { name: 'sector=', datasets: [SECTOR_DIRECTORY] };

/** Up to `max` of a sector's names from the sector directory, largest first as it lists them (its next pages followed). */
export async function sectorNames(fan: FanOut, sector: string, max: number): Promise<{ names: string[]; more: boolean }> {
  const names: string[] = [];
  let args: Row = { sector };
  for (let page = 0; page < 5; page += 1) {
    const answer = await fan.call(SECTOR_DIRECTORY, args);
    for (const row of rowsOf(answer.data)) {
      const ticker = tickerOf(row);
      if (ticker !== undefined && !names.includes(ticker)) names.push(ticker);
    }
    const next = answer.meta['next_cursor'];
    // More names than read: a next page, or a page said cut with no cursor to the rest.
    if (names.length >= max || typeof next !== 'string')
      return { names: names.slice(0, max), more: names.length > max || !readWhole(answer) };
    args = { sector, cursor: next };
  }
  return { names: names.slice(0, max), more: true };
}

/** Answer: what `answer` built, within the result budget, or the error any stage threw as a tool error. */
export async function fannedResult(deps: FanOutDeps, answer: () => Promise<Row>): Promise<CallToolResult> {
  try {
    const fitted = await withinBudget(await answer(), deps.tool.resultTokens);
    return { content: [{ type: 'text', text: JSON.stringify(fitted) }], structuredContent: fitted };
  } catch (error) {
    return errorResult(asApiError(error));
  }
}
