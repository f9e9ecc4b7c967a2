/**
 * Parameter schemas shared by every dataset, written exactly as the spec states them.
 * Names the spec leaves open (its notes A, B and C) are chosen here and nowhere else.
 */
import * as z from 'zod';
import type { ApiErrorCode } from './error-codes.js';

/** A row field as `fields` names it: what an upstream keys its rows by, snake_case, camelCase or dotted. */
export const FIELD_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,59}$/;
export const GENERAL_TICKER_PATTERN = /^[A-Z][A-Z0-9]*(\.[A-Z0-9]+)*$/;
export const DEALER_TICKER_PATTERN = /^[A-Z]{1,5}$/;
/** OSI: underlying, expiry YYMMDD, C or P, strike x 1000 zero-padded to 8 digits. */
export const OSI_CONTRACT_PATTERN = /^([A-Z][A-Z0-9.]{0,5})(\d{2})(\d{2})(\d{2})([CP])(\d{8})$/;

/** The code the API answers when a value of this schema is refused; VALIDATION_ERROR otherwise. */
const refusalCodes = new WeakMap<z.ZodType, ApiErrorCode>();

export function refusedAs<T extends z.ZodType>(schema: T, code: ApiErrorCode): T {
  refusalCodes.set(schema, code);
  return schema;
}

export function refusalCodeOf(schema: z.ZodType): ApiErrorCode {
  let current: z.ZodType = schema;
  // Optional and default wrappers are new instances: look through them to the base schema.
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault) {
    current = current.unwrap() as z.ZodType;
  }
  return refusalCodes.get(current) ?? 'VALIDATION_ERROR';
}

export function isRealCalendarDate(value: string, format: 'YYYY-MM-DD' | 'YYMMDD' = 'YYYY-MM-DD'): boolean {
  const match = format === 'YYYY-MM-DD' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : /^(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (!match) return false;
  const year = Number(match[1]) + (format === 'YYMMDD' ? 2000 : 0);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export const generalTicker = refusedAs(
  z.string().max(12).regex(GENERAL_TICKER_PATTERN).describe('Ticker in upper case, dotted class suffix allowed (e.g. SPY, BRK.B).'),
  'TICKER_INVALID',
);

export const dealerTicker = refusedAs(
  z.string().regex(DEALER_TICKER_PATTERN).describe('Ticker of 1 to 5 upper-case letters, no suffix (e.g. SPY, QQQ, SPX).'),
  'TICKER_INVALID',
);

export const etTradingDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .refine((value) => isRealCalendarDate(value), { message: 'not a real calendar date' })
  .meta({ format: 'date' });

export const osiContractSymbol = refusedAs(
  z
    .string()
    .regex(OSI_CONTRACT_PATTERN)
    .refine((value) => isRealCalendarDate(value.slice(-15, -9), 'YYMMDD'), { message: 'expiry is not a real date' })
    .describe('OSI option contract symbol: underlying + expiry YYMMDD + C|P + strike x 1000 padded to 8 digits (e.g. SPY261218C00600000).'),
  'CONTRACT_SYMBOL_INVALID',
);

export const flowWindow = z.enum(['1d', '7d']).describe('Trading sessions covered: 1d or 7d.');
export const singleLegOnly = z.enum(['true', 'false']).describe('"true" keeps single-leg trades only.');
export const optionRight = z.enum(['C', 'P']).describe('Option right: C (call) or P (put).');
export const barInterval = z.enum(['1m', '5m', '10m', '15m', '30m', '1h']).describe('Bar interval.');
export const SECTORS = [
  'Basic Materials',
  'Communication Services',
  'Consumer Cyclical',
  'Consumer Defensive',
  'Energy',
  'Financial Services',
  'Healthcare',
  'Industrials',
  'Real Estate',
  'Technology',
  'Utilities',
] as const;
export const sector = z.enum(SECTORS).describe('Sector name, exactly as listed.');

export const cursor = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[A-Za-z0-9_-]+$/)
  .describe('Opaque cursor from the previous page (meta.next_cursor).');

export const fromDate = etTradingDate.describe('First ET trading date to include (YYYY-MM-DD).');
export const toDate = etTradingDate.describe('Last ET trading date to include (YYYY-MM-DD).');
export const sessionDate = etTradingDate.describe('ET trading date (YYYY-MM-DD); default the latest session.');
export const summaryFormat = z.enum(['summary']).describe('"summary" returns aggregates instead of rows (avoids RESPONSE_TOO_LARGE).');

/** Comma-separated tickers, each checked against the general ticker pattern. */
export const tickerList = refusedAs(
  z
    .string()
    .regex(/^[A-Z][A-Z0-9]*(\.[A-Z0-9]+)*(,[A-Z][A-Z0-9]*(\.[A-Z0-9]+)*){1,9}$/)
    .describe('2 to 10 comma-separated upper-case tickers (e.g. SPY,QQQ,IWM).'),
  'TICKER_INVALID',
);

export const currencyPair = z
  .string()
  .regex(/^[A-Z]{6}$/)
  .describe('Currency pair as base and quote ISO 4217 codes, e.g. EURUSD.');

/**
 * The length a text parameter of the upstream's document takes at most when the document
 * states none: a guard of this server's, checked on every call (registry/openapi/
 * parameter-schema.ts) and not advertised (mcp/arguments/portable-constraints.ts), since it
 * says nothing of the parameter to a model and cost 6 o200k tokens a list in tools/list.
 */
export const UNSTATED_MAX_LENGTH = 256;

/**
 * A bound someone meant: zod's `.int()` writes ±9007199254740991 where a document gave none,
 * which no agent should read as a limit (tool text, refusals, "up to …" advice).
 */
export function meantBound(value: unknown): number | undefined {
  return typeof value === 'number' && Math.abs(value) < Number.MAX_SAFE_INTEGER ? value : undefined;
}
