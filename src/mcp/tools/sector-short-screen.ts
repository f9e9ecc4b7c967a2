/**
 * `shorts_sector_screener`: the most shorted names of a sector in one call ("the most
 * shorted names in Technology" was a sector list, then the screener by tickers, 10 at a
 * time). The sector directory names the sector's companies; the short screener's own tool is
 * called for them 10 at a time (its `tickers` filter, sent upstream where the document lists
 * it and applied here over its pages otherwise); a batch that fails is reported beside the
 * others' rows.
 */
import type { CallToolResult, ServerContext } from '@modelcontextprotocol/server';
import type { CallContext } from '../../api/call-context.js';
import * as z from 'zod';
import { upstreamRoles } from '../../catalog/param-roles.js';
import { failedError, noneAnswered } from './compare-failures.js';
import { progressReporter } from '../call-context.js';
import type { ToolDefinition } from '../tool.js';
import { READ_ONLY_API_TOOL } from './annotations.js';
import {
  fannedResult,
  FanOut,
  keptFields,
  num,
  parseNames,
  readWhole,
  rowsOf,
  SECTOR_DIRECTORY,
  sectorNames,
  type FanOutDeps,
  type Row,
} from './fan-out.js';
import { toolNameOf } from './dataset-tool.js';
import { tickerOf } from '../reading/field-roles.js';
import { advertisedSchema, type ToolArguments } from '../arguments/input-schema.js';
import { ownArguments } from '../arguments/own-arguments.js';
import { requestCosts } from './request-costs.js';
import { invalidArguments } from '../answers/tool-errors.js';
import { knownReachRefusal, type FanOutReach } from '../key-reach.js';

export const SECTOR_SCREEN_TOOL = 'shorts_sector_screener';
const SCREENER = 'shorts.short_screener';
export const SECTOR_SCREEN_DATASETS = [SCREENER, SECTOR_DIRECTORY] as const;
/** One part: a screen needs the sector's names and the screener both. */
export const SECTOR_SCREEN_REACH: FanOutReach = { parts: [{ name: 'the screen', datasets: SECTOR_SCREEN_DATASETS }] };
/** A sector's names read at most: five batches of the screener's 10 tickers. */
const MAX_SECTOR_NAMES = 50;
const BATCH = 10;
const SORTS = ['short_float_pct', 'days_to_cover'] as const;
/** What a row of the answer keeps beside its ticker (named `ticker` here, whatever the upstream calls it): the fields a screen is read for. */
const KEPT = ['name', 'short_float_pct', 'days_to_cover', 'short_interest_shares', 'settlement_date'];

/** Rows one answer shows at most. */
const MAX_LIMIT = 25;

const args = z.object({
  limit: z.int().min(1).max(MAX_LIMIT).optional(),
  min_short_float_pct: z.number().min(0).max(100).optional(),
  sort_by: z.enum(SORTS).optional(),
});

/** The description, with what a call spends with this upstream (request-costs.ts). */
export function sectorScreenDescription(deps: FanOutDeps): string {
  return `A sector's most shorted companies: % of float, days to cover, shares short, highest first. ${requestCosts(deps.tool.client, deps.datasets()).sectorScreener}`;
}

/** What a sector screen asks, screened. */
interface ScreenAsk {
  readonly sector: string;
  readonly limit: number;
  readonly minShortFloatPct: number | undefined;
  readonly sortBy: (typeof SORTS)[number];
}

/** Screen: the sector, the rows shown, the floor and the order, refused before anything is asked. */
function screenAsk(raw: ToolArguments): ScreenAsk {
  const given = ownArguments(raw, ['sector', 'limit', 'min_short_float_pct', 'sort_by'], {
    limit: 'integer',
    min_short_float_pct: 'number',
  });
  const { sector } = parseNames(given, { sectorOnly: true });
  const parsed = args.safeParse({ limit: given['limit'], min_short_float_pct: given['min_short_float_pct'], sort_by: given['sort_by'] });
  if (!parsed.success)
    throw invalidArguments(
      `Invalid value for "${String(parsed.error.issues[0]?.path[0] ?? 'limit')}".`,
      'limit is 1 to 25; min_short_float_pct 0 to 100; sort_by short_float_pct or days_to_cover.',
    );
  return {
    sector: sector ?? '',
    limit: parsed.data.limit ?? 10,
    minShortFloatPct: parsed.data.min_short_float_pct,
    sortBy: parsed.data.sort_by ?? 'short_float_pct',
  };
}

/** What the batches read: the screener's rows, and the names of batches read only in part (more rows followed) that had none in them. */
interface ScreenRead {
  rows: Row[];
  unread: Set<string>;
}

/** Read: the screener's rows for each batch of names; a batch that fails is kept in the fan's failures under its tickers. */
async function readBatches(fan: FanOut, names: readonly string[], ask: ScreenAsk): Promise<ScreenRead> {
  const batches: string[][] = [];
  for (let i = 0; i < names.length; i += BATCH) batches.push(names.slice(i, i + BATCH));
  const unread = new Set<string>();
  const screen = async (batch: string[]): Promise<Row[]> => {
    const floor = ask.minShortFloatPct !== undefined ? { min_short_float_pct: ask.minShortFloatPct } : {};
    const answer = await fan.attempt(batch.join(','), () => fan.call(SCREENER, { tickers: batch.join(','), limit: BATCH, ...floor }));
    if (!answer) return [];
    const rows = rowsOf(answer.data);
    // An upstream read here over its market-wide pages stops after some of them: a name not in
    // them is not read, which is not a name without a row.
    if (!readWhole(answer)) {
      const seen = new Set(rows.map((r) => tickerOf(r)));
      for (const name of batch) if (!seen.has(name)) unread.add(name);
    }
    return rows;
  };
  // Where the upstream filters by tickers, each batch is its own request, asked at once; where
  // its market-wide pages are read here, one batch after another, so the later ones read the
  // pages the first cached (asked at once, each would count the same shared request).
  const dataset = fan.dataset(SCREENER);
  const read: Row[][] = [];
  if (dataset && upstreamRoles(dataset).tickers !== undefined) read.push(...(await Promise.all(batches.map(screen))));
  else for (const batch of batches) read.push(await screen(batch));
  if (batches.length > 0 && fan.failures.length === batches.length)
    throw noneAnswered('Nothing was answered', fan.failures, fan.spent()['units']);
  return { rows: read.flat(), unread };
}

/** Shape: the sector's own names only, highest first, the rows kept to what a screen is read for, and what is missing said. */
function shapeScreen(deps: FanOutDeps, fan: FanOut, ask: ScreenAsk, listed: { names: string[]; more: boolean }, read: ScreenRead): Row {
  const wanted = new Set(listed.names);
  // Only the sector's names: an upstream that ignores the filter is not believed on its word.
  const rows = read.rows
    .filter((r) => wanted.has(tickerOf(r) ?? ''))
    .sort((a, b) => (num(b, ask.sortBy) ?? -Infinity) - (num(a, ask.sortBy) ?? -Infinity));
  const shown = rows
    .slice(0, ask.limit)
    // Numbers as numbers, whether the upstream sent them so or as numeric text (they are sorted as numbers too).
    .map((r) => ({ ticker: tickerOf(r), ...keptFields(r, KEPT) }));
  const failed = fan.failures.map((f) => ({ tickers: f.name, error: failedError(f.error) }));
  const notices = screenNotices(
    ask,
    listed,
    rows.length,
    fan.failures.reduce((n, f) => n + f.name.split(',').length, 0),
    [...read.unread],
  );
  return {
    data: shown,
    ...(failed.length > 0 ? { failed } : {}),
    meta: {
      ...fan.spent(),
      covers: `sector ${ask.sector}: ${listed.names.length} names screened${read.unread.size > 0 ? ` (${read.unread.size} not reached)` : ''}, ${rows.length} with a row`,
      truncated: rows.length > shown.length || read.unread.size > 0,
      has_more: rows.length > shown.length,
      ...(rows.length > shown.length ? { more_rows: moreRows(ask, rows.length, shown.length) } : {}),
      sorted_by: `${ask.sortBy}, highest first`,
      ...(notices.length > 0 ? { notice: notices.join(' ') } : {}),
      ...(deps.tool.simulated ? { simulated: true } : {}),
    },
  };
}

/** How to get the rows past the limit: there is no cursor, all of them were read; a larger limit shows them, up to MAX_LIMIT. */
function moreRows(ask: ScreenAsk, withRow: number, shown: number): string {
  const left = withRow - shown;
  const rows = `${left} more of the sector's names have a row, ranked below these by ${ask.sortBy}`;
  if (shown >= MAX_LIMIT) return `${rows}; ${MAX_LIMIT} is the most one call shows (a higher min_short_float_pct keeps fewer).`;
  if (withRow <= MAX_LIMIT) return `${rows}: ask limit=${withRow} for all of them (no cursor; a repeat is served from the cache).`;
  return `${rows}: ask limit=${MAX_LIMIT}, the most one call shows, for ${MAX_LIMIT - shown} of them (no cursor).`;
}

/** What the answer says of names not screened, not in the rows read, or without a row. */
function screenNotices(
  ask: ScreenAsk,
  listed: { names: string[]; more: boolean },
  withRow: number,
  inFailedBatches: number,
  unread: readonly string[],
): string[] {
  const notices: string[] = [];
  if (listed.more) notices.push(`${ask.sector}: its ${listed.names.length} largest names were screened.`);
  if (unread.length > 0)
    notices.push(
      `${unread.length} of the sector's names (${unread.join(', ')}) were not in the screener rows read; the upstream holds more rows than were read (${toolNameOf({ operationId: SCREENER })} tickers=${unread.join(',')}, then its next_cursor, reads on).`,
    );
  const missing = listed.names.length - withRow - inFailedBatches - unread.length;
  if (missing > 0)
    notices.push(
      `${missing} of the sector's ${listed.names.length} names have no row${ask.minShortFloatPct !== undefined ? ` at ${ask.minShortFloatPct} % of float or more` : ' (funds and names the disclosure leaves out)'}.`,
    );
  return notices;
}

/** Screen → plan (the sector's names) → read → shape → answer. */
function screenSector(deps: FanOutDeps, raw: ToolArguments, ctx: ServerContext, call: CallContext): Promise<CallToolResult> {
  return fannedResult(deps, async () => {
    const ask = screenAsk(raw);
    // Refused as the screener would refuse it, before the sector's names are bought.
    const refusal = knownReachRefusal(deps.tool.client, SECTOR_SCREEN_TOOL, SECTOR_SCREEN_REACH.parts);
    if (refusal) throw refusal;
    const fan = new FanOut(deps, call, progressReporter(ctx));
    const listed = await sectorNames(fan, ask.sector, MAX_SECTOR_NAMES);
    const read = await readBatches(fan, listed.names, ask);
    return shapeScreen(deps, fan, ask, listed, read);
  });
}

export function sectorShortScreenTool(deps: FanOutDeps): ToolDefinition {
  return {
    name: SECTOR_SCREEN_TOOL,
    config: {
      title: 'Most shorted names of a sector',
      description: sectorScreenDescription(deps),
      inputSchema: advertisedSchema({
        type: 'object',
        properties: {
          sector: { type: 'string', description: 'e.g. Technology.' },
          limit: { type: 'integer', description: '1-25, default 10.' },
          min_short_float_pct: { type: 'number', description: '0-100.' },
          sort_by: { type: 'string', enum: [...SORTS], description: 'Default short_float_pct.' },
        },
        required: ['sector'],
        additionalProperties: false,
      }),
      annotations: READ_ONLY_API_TOOL,
    },
    handler: (raw, ctx, call) => screenSector(deps, raw, ctx, call),
  };
}
