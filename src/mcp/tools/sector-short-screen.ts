/**
 * `shorts_sector_screener`: the most shorted names of a sector in one call ("the most
 * shorted names in Technology" was a sector list, then the screener by tickers, 10 at a
 * time). The sector directory names the sector's companies; the short screener's own tool is
 * called for them 10 at a time (its `tickers` filter, sent upstream where the document lists
 * it and applied here over its pages otherwise); a batch that fails is reported beside the
 * others' rows.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { upstreamRoles } from '../../catalog/param-roles.js';
import { failedError, noneAnswered, type FailedPart } from './compare-failures.js';
import { progressReporter } from '../call-context.js';
import type { ToolDefinition } from '../tool.js';
import { READ_ONLY_API_TOOL } from './annotations.js';
import { FanOut, num, parseNames, rowsOf, sectorNames, str, type FanOutDeps, type Row } from './fan-out.js';
import { advertisedSchema } from '../arguments/input-schema.js';
import { ownArguments } from '../arguments/own-arguments.js';
import { requestCosts } from './request-costs.js';
import { withinBudget } from '../answers/results.js';
import { asApiError, errorResult, invalidArguments } from '../answers/tool-errors.js';

export const SECTOR_SCREEN_TOOL = 'shorts_sector_screener';
const SCREENER = 'shorts.short_screener';
export const SECTOR_SCREEN_DATASETS = [SCREENER, 'stocks.sector_tickers'] as const;
/** A sector's names read at most: five batches of the screener's 10 tickers. */
const MAX_SECTOR_NAMES = 50;
const BATCH = 10;
const SORTS = ['short_float_pct', 'days_to_cover'] as const;
/** What a row of the answer keeps: the fields a screen is read for. */
const KEPT = ['ticker', 'name', 'short_float_pct', 'days_to_cover', 'short_interest_shares', 'settlement_date'];

const args = z.object({
  limit: z.int().min(1).max(25).optional(),
  min_short_float_pct: z.number().min(0).max(100).optional(),
  sort_by: z.enum(SORTS).optional(),
});

/** The description, with what a call spends with this upstream (request-costs.ts). */
export function sectorScreenDescription(deps: FanOutDeps): string {
  return `A sector's most shorted companies: % of float, days to cover, shares short, highest first. ${requestCosts(deps.tool.client, deps.datasets()).sectorScreener}`;
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
    handler: async (raw, ctx, call): Promise<CallToolResult> => {
      try {
        const given = ownArguments(raw, ['sector', 'limit', 'min_short_float_pct', 'sort_by']);
        const { sector } = parseNames(given, { sectorOnly: true });
        const parsed = args.safeParse({
          limit: given['limit'],
          min_short_float_pct: given['min_short_float_pct'],
          sort_by: given['sort_by'],
        });
        if (!parsed.success)
          throw invalidArguments(
            `Invalid value for "${String(parsed.error.issues[0]?.path[0] ?? 'limit')}".`,
            'limit is 1 to 25; min_short_float_pct 0 to 100; sort_by short_float_pct or days_to_cover.',
          );
        const limit = parsed.data.limit ?? 10;
        const sortBy = parsed.data.sort_by ?? 'short_float_pct';
        const fan = new FanOut(deps, call, progressReporter(ctx));
        const listed = await sectorNames(fan, sector ?? '', MAX_SECTOR_NAMES);
        const batches: string[][] = [];
        for (let i = 0; i < listed.names.length; i += BATCH) batches.push(listed.names.slice(i, i + BATCH));
        const failures: FailedPart[] = [];
        const screen = async (batch: string[]): Promise<Row[]> => {
          try {
            const answer = await fan.call(SCREENER, {
              tickers: batch.join(','),
              limit: BATCH,
              ...(parsed.data.min_short_float_pct !== undefined ? { min_short_float_pct: parsed.data.min_short_float_pct } : {}),
            });
            return rowsOf(answer.data);
          } catch (error) {
            failures.push({ name: batch.join(','), error: asApiError(error) });
            return [];
          }
        };
        // Where the upstream filters by tickers, each batch is its own request, asked at once; where
        // its market-wide pages are read here, one batch after another, so the later ones read the
        // pages the first cached (asked at once, each would count the same shared request).
        const dataset = fan.dataset(SCREENER);
        const read: Row[][] = [];
        if (dataset && upstreamRoles(dataset).tickers !== undefined) read.push(...(await Promise.all(batches.map(screen))));
        else for (const batch of batches) read.push(await screen(batch));
        if (batches.length > 0 && failures.length === batches.length)
          throw noneAnswered('Nothing was answered', failures, fan.spent()['units']);
        const failed = failures.map((f) => ({ tickers: f.name, error: failedError(f.error) }));
        const wanted = new Set(listed.names);
        // Only the sector's names: an upstream that ignores the filter is not believed on its word.
        const rows = read
          .flat()
          .filter((r) => wanted.has(str(r, 'ticker', 'symbol') ?? ''))
          .sort((a, b) => (num(b, sortBy) ?? -Infinity) - (num(a, sortBy) ?? -Infinity));
        const shown = rows.slice(0, limit).map((r) => Object.fromEntries(KEPT.filter((k) => k in r).map((k) => [k, r[k]])));
        const notices: string[] = [];
        if (listed.more) notices.push(`${sector}: its ${listed.names.length} largest names were screened.`);
        const missing = listed.names.length - rows.length - failures.reduce((n, f) => n + f.name.split(',').length, 0);
        if (missing > 0)
          notices.push(
            `${missing} of the sector's ${listed.names.length} names have no row${parsed.data.min_short_float_pct !== undefined ? ` at ${parsed.data.min_short_float_pct} % of float or more` : ' (funds and names the disclosure leaves out)'}.`,
          );
        const answer = {
          data: shown,
          ...(failed.length > 0 ? { failed } : {}),
          meta: {
            ...fan.spent(),
            covers: `sector ${sector}: ${listed.names.length} names screened, ${rows.length} with a row`,
            truncated: rows.length > shown.length,
            has_more: rows.length > shown.length,
            sorted_by: `${sortBy}, highest first`,
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
