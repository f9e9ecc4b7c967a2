/**
 * Row filters a trader asks for where the upstream offers none: applied by this server
 * over the rows the upstream returned (src/mcp/reading/row-filters.ts), never sent upstream.
 */
import * as z from 'zod';
import { tickerFilter } from './filter-params.js';

const ET_CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;
const clock = z
  .string()
  .max(5)
  .refine((v) => ET_CLOCK.test(v), { message: 'not an ET time HH:MM' });

/** Dark-pool prints: by size, notional and time of day. */
export const darkpoolFilters = {
  min_size: z.number().int().min(1).describe('Minimum shares.').optional(),
  min_notional_usd: z.number().min(0).describe('Minimum USD value.').optional(),
  from_time: clock.describe('From this ET time, HH:MM.').optional(),
  to_time: clock.describe('Until this ET time, HH:MM.').optional(),
};

/** Lit prints: by ticker. */
export const litFilters = { tickers: tickerFilter };

export const OI_DIRECTIONS = ['increase', 'decrease'] as const;

/** Open-interest changes: increases or decreases only. */
export const oiChangeFilters = {
  direction: z.enum(OI_DIRECTIONS).describe('Increases or decreases only.').optional(),
};
