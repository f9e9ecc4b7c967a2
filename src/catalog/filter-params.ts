/**
 * Parameters this project chose where the spec leaves them open: filters that let one
 * call answer a trader's question, and the dealer history's MCP-side views and ranges.
 */
import * as z from 'zod';
import { etTradingDate, refusedAs } from './params.js';

const TICKER = '[A-Z][A-Z0-9]*(\\.[A-Z0-9]+)*';
/** 1 to 10 comma-separated tickers. */
export const TICKER_LIST = new RegExp(`^${TICKER}(,${TICKER}){0,9}$`);

/** Upstream filter: only rows of these tickers. */
export const tickerFilter = refusedAs(
  // A refinement, not a regex: the list pattern would cost tokens in every tools/list.
  z
    .string()
    .max(200)
    .refine((v) => TICKER_LIST.test(v))
    .describe('Only these, comma-separated (e.g. GME,AMC).'),
  'TICKER_INVALID',
).optional();

/** A congress trade's transaction type: the `side` filter's values and the rows' own (the simulator emits exactly these). */
export const CONGRESS_SIDES = ['buy', 'sell'] as const;
export type CongressSide = (typeof CONGRESS_SIDES)[number];

/** Upstream filter on congress trades: the transaction type. */
export const side = z.enum(CONGRESS_SIDES).describe('Transaction type.').optional();

/** MCP-side: continues after the last row of an answer cut to fit the result budget. */
export const pageCursor = z.string().describe('meta.next_cursor').optional();

/** `from`/`to` of the dealer history: an ET date (whole session) or an ISO date-time. */
const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;
// Checked by refinement rather than a regex: the pattern would cost tokens in every tools/list.
const instant = z
  .string()
  .max(40)
  .refine((v) => INSTANT.test(v), { message: 'not an ET date or ISO date-time' })
  .refine((v) => !Number.isNaN(Date.parse(v.length === 10 ? `${v}T12:00:00Z` : v)), { message: 'not a real date or time' });

export const DEALER_VIEWS = ['latest', 'levels', 'full', 'sessions'] as const;

/** The dealer history's MCP-side parameters: applied over the upstream's pages, never sent. */
export const dealerShaping = {
  view: z
    .enum(DEALER_VIEWS)
    .describe(
      'latest (default): newest snapshot; levels: row per snapshot; full: with strikes; sessions: a row per session (flip range, regime since when, walls).',
    )
    .optional(),
  session_date: etTradingDate.describe('One ET session (YYYY-MM-DD).').optional(),
  from: instant.describe('Start: ET date or ISO date-time.').optional(),
  to: instant.describe('End: ET date or ISO date-time.').optional(),
  // Not coerced: an agent's "3" or true is refused as not an integer, as in every other tool.
  limit: z.number().int().min(1).max(234).describe('Snapshots at most (default: latest 1, else all in range).').optional(),
  cursor: pageCursor,
};
