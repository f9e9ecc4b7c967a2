/**
 * Checks a request against a dataset's parameters the way the API does, so that the MCP
 * server can refuse bad input before it costs anything and the simulator can answer
 * exactly the code the spec gives (TICKER_INVALID, CONTRACT_SYMBOL_INVALID,
 * VALIDATION_ERROR), each with a hint that names the fix.
 */
import * as z from 'zod';
import { quoteValue } from '../sanitize.js';
import type { ApiErrorCode } from './error-codes.js';
import { DEALER_TICKER_PATTERN, GENERAL_TICKER_PATTERN, refusalCodeOf } from './params.js';
import type { DatasetDefinition } from './types.js';

export interface ParamRefusal {
  readonly code: ApiErrorCode;
  readonly param: string;
  readonly message: string;
  readonly hint: string;
}

export type QueryValues = Record<string, string | number>;

export type ValidatedRequest =
  | { readonly ok: true; readonly ticker: string | undefined; readonly query: QueryValues }
  | { readonly ok: false; readonly refusal: ParamRefusal };

export function isRequiredParam(schema: z.ZodType): boolean {
  return !schema.safeParse(undefined).success;
}

export function validateRequest(dataset: DatasetDefinition, ticker: unknown, query: Readonly<Record<string, unknown>>): ValidatedRequest {
  let parsedTicker: string | undefined;
  if (dataset.ticker) {
    const result = dataset.ticker.safeParse(ticker);
    if (!result.success) return { ok: false, refusal: tickerRefusal(dataset, 'ticker', ticker) };
    parsedTicker = result.data;
  }

  const accepted = Object.keys(dataset.query);
  for (const name of Object.keys(query)) {
    if (!Object.hasOwn(dataset.query, name)) {
      return refuse('VALIDATION_ERROR', name, `Unknown parameter ${quoteValue(name)}.`, acceptedHint(accepted));
    }
  }

  const parsed: QueryValues = {};
  for (const [name, schema] of Object.entries(dataset.query)) {
    const raw = query[name];
    const result = schema.safeParse(raw);
    if (!result.success) {
      if (raw === undefined) return refuse('VALIDATION_ERROR', name, `Missing required parameter "${name}".`, describeParam(name, schema));
      const code = refusalCodeOf(schema);
      if (code === 'TICKER_INVALID') return { ok: false, refusal: tickerRefusal(dataset, name, raw) };
      return refuse(code, name, `Invalid value ${quoteValue(raw)} for "${name}".`, describeParam(name, schema));
    }
    if (typeof result.data === 'string' || typeof result.data === 'number') parsed[name] = result.data;
  }

  const from = parsed['from'];
  const to = parsed['to'];
  if (typeof from === 'string' && typeof to === 'string' && from > to) {
    return refuse('VALIDATION_ERROR', 'from', `"from" (${from}) is after "to" (${to}).`, 'Swap the dates or widen the range.');
  }
  return { ok: true, ticker: parsedTicker, query: parsed };
}

function refuse(code: ApiErrorCode, param: string, message: string, hint: string): ValidatedRequest {
  return { ok: false, refusal: { code, param, message, hint } };
}

function acceptedHint(accepted: readonly string[]): string {
  return accepted.length === 0 ? 'This dataset takes no query parameters.' : `Accepted parameters: ${accepted.join(', ')}.`;
}

function describeParam(name: string, schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    enum?: unknown[];
    description?: string;
    minimum?: number;
    maximum?: number;
    format?: string;
  };
  if (json.enum) return `"${name}" must be one of: ${json.enum.map(String).join(', ')}.`;
  if (json.format === 'date') return `"${name}" must be a real calendar date as YYYY-MM-DD.`;
  const range = json.minimum !== undefined && json.maximum !== undefined ? ` (${json.minimum} to ${json.maximum})` : '';
  return `"${name}": ${json.description ?? 'see the tool schema'}${range}`;
}

function tickerRefusal(dataset: DatasetDefinition, param: string, raw: unknown): ParamRefusal {
  const value = typeof raw === 'string' ? raw : '';
  const message = `Invalid ticker ${quoteValue(raw)} for "${param}".`;
  const upper = value.trim().toUpperCase();
  const schema = param === 'ticker' ? dataset.ticker : dataset.query[param];
  const pattern = (schema && patternOf(schema)) ?? GENERAL_TICKER_PATTERN;
  if (param === 'tickers') {
    const fixed = upper
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const fixable = fixed.length >= 2 && fixed.length <= 10 && fixed.every((t) => GENERAL_TICKER_PATTERN.test(t));
    return {
      code: 'TICKER_INVALID',
      param,
      message,
      hint: fixable ? `Use "${fixed.join(',')}".` : 'Give 2 to 10 upper-case tickers separated by commas, e.g. SPY,QQQ,IWM.',
    };
  }
  if (upper !== value && pattern.test(upper))
    return { code: 'TICKER_INVALID', param, message, hint: `Tickers are upper case: use "${upper}".` };
  if (pattern.source === DEALER_TICKER_PATTERN.source) {
    return {
      code: 'TICKER_INVALID',
      param,
      message,
      hint: 'This endpoint takes 1 to 5 upper-case letters, no digits or class suffix (e.g. SPY, QQQ, SPX).',
    };
  }
  return {
    code: 'TICKER_INVALID',
    param,
    message,
    hint: 'Tickers are upper-case letters and digits with an optional dotted suffix, e.g. SPY or BRK.B.',
  };
}

function patternOf(schema: z.ZodType): RegExp | undefined {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { pattern?: string };
  return json.pattern === undefined ? undefined : new RegExp(json.pattern);
}
