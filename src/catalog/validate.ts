/**
 * Checks a request against a dataset's parameters the way the API does, so that the MCP
 * server can refuse bad input before it costs anything and the simulator can answer
 * exactly the code the spec gives (TICKER_INVALID, CONTRACT_SYMBOL_INVALID,
 * VALIDATION_ERROR), each with a hint that names the fix.
 *
 * One path for both callers: `validateRequest` takes what arrives on the wire (path
 * ticker, query strings), `checkAgentArguments` what an agent sends (one JSON object, screened first);
 * both end in the same per-parameter check, which looks at a value's type before any
 * schema coerces it, caps its length before any pattern runs on it, and reads only
 * properties the caller really sent.
 */
import * as z from 'zod';
import { quoteValue } from '../sanitize.js';
import type { ApiErrorCode } from './error-codes.js';
import { DEALER_TICKER_PATTERN, GENERAL_TICKER_PATTERN, meantBound, refusalCodeOf } from './params.js';
import type { DatasetDefinition } from './types.js';
import { tooManyTickers } from './ticker-list-length.js';

export interface ParamRefusal {
  readonly code: ApiErrorCode;
  readonly param: string;
  readonly message: string;
  readonly hint: string;
  /**
   * The row of the error table that says what to do, when not the code's own: a ticker this
   * dataset covers in no spelling is the API's TICKER_INVALID, acted on as NOT_FOUND (a
   * different spelling would not help).
   */
  readonly kind?: ApiErrorCode;
}

export type QueryValues = Record<string, string | number>;

export type ValidatedRequest =
  | { readonly ok: true; readonly ticker: string | undefined; readonly query: QueryValues }
  | { readonly ok: false; readonly refusal: ParamRefusal };

/** A string parameter with no `maxLength` of its own is refused above this many characters. */
export const DEFAULT_MAX_STRING_LENGTH = 256;

/** Names that would reach an object's prototype: never a parameter unless a dataset declares it. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** What a query string may hold for a number: plain decimal, no hex, exponent or blanks. */
const DECIMAL = /^-?\d{1,15}(\.\d{1,15})?$/;
/** A whole number as text: digits and an optional minus, nothing else ("5", not "5.5" or "5.0"). */
const INTEGER_TEXT = /^-?\d{1,15}$/;

/** The JSON types an agent may send as text, when the text is exactly a value of that type. */
export type TextForm = 'integer' | 'number' | 'boolean';

/**
 * `raw` as the value its text spells, when it is text of exactly `form` ("5" for an integer,
 * "2.5" for a number, "true" for a boolean); else `raw` unchanged, for the check to refuse.
 * Some models send every value as a string: each refusal of "5" cost a round trip, and the
 * text says nothing else. Nothing looser: no blanks, hex, exponent or empty text.
 */
export function fromText(raw: unknown, form: TextForm): unknown {
  if (typeof raw !== 'string') return raw;
  if (form === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return (form === 'integer' ? INTEGER_TEXT : DECIMAL).test(raw) ? Number(raw) : raw;
}

export function isRequiredParam(schema: z.ZodType): boolean {
  return !schema.safeParse(undefined).success;
}

/** Where values come from: query strings (numbers are text) or an agent's JSON (numbers are numbers). */
export type InputSource = 'wire' | 'agent';

/** A request as it arrives on the wire: the path's ticker and the query string's values. */
export function validateRequest(dataset: DatasetDefinition, ticker: unknown, query: Readonly<Record<string, unknown>>): ValidatedRequest {
  const unknown = Object.keys(query).find((name) => !Object.hasOwn(dataset.query, name));
  if (unknown !== undefined) return refuseUnknownParam(dataset, unknown, Object.keys(dataset.query), 'wire');
  return checkParams(dataset, ticker, query, 'wire');
}

/**
 * An agent's arguments, already screened (src/mcp/arguments/screen.ts: names, nulls, host
 * properties), checked as the wire is, with every value typed as JSON. `local` names the
 * tool's own parameters, taken out here; names the dataset does not take are not read.
 */
export function checkAgentArguments(
  dataset: DatasetDefinition,
  args: Readonly<Record<string, unknown>>,
  local: ReadonlySet<string>,
): ValidatedRequest {
  const sent = new Map(Object.entries(args).filter(([name]) => !local.has(name) || Object.hasOwn(dataset.query, name)));
  // `ticker` goes in the path when the path has one; an upstream may take it in the query instead.
  const ticker = dataset.ticker ? sent.get('ticker') : undefined;
  if (dataset.ticker) sent.delete('ticker');
  return checkParams(dataset, ticker, Object.fromEntries(sent), 'agent');
}

/**
 * Checks one MCP-side (shaping) argument from an agent the way every tool parameter is
 * checked: by its declared JSON type first ("3" and true are not integers), then by the
 * schema, with a hint naming the allowed values or format.
 */
export function validateAgentParam(
  dataset: DatasetDefinition,
  name: string,
  schema: z.ZodType,
  raw: unknown,
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly refusal: ParamRefusal } {
  return checkParam(dataset, name, schema, raw, 'agent');
}

/** Every parameter a tool takes, in the order the schema lists them. */
export function acceptedParams(dataset: DatasetDefinition, extra: readonly string[] = []): string[] {
  return [
    ...new Set([
      ...(dataset.ticker ? ['ticker'] : []),
      ...Object.keys(takenQuery(dataset)),
      ...Object.keys(dataset.shaping ?? {}),
      ...extra,
    ]),
  ];
}

/**
 * The upstream parameters an agent may name: none for a tool that answers with its own
 * shape (the dealer history drives the upstream's paging itself, under the upstream's names).
 */
export function takenQuery(dataset: DatasetDefinition): DatasetDefinition['query'] {
  return dataset.toolOutput ? {} : dataset.query;
}

/** What a tool takes, said where a name it does not take is refused (a dataset's parameters, a tool's own arguments). */
export function acceptedHint(accepted: readonly string[]): string {
  return accepted.length === 0 ? 'This tool takes no parameters.' : `Accepted parameters: ${accepted.join(', ')}.`;
}

/** The refusal of a parameter name the dataset does not take, with the names it does. */
export function refuseUnknownParam(
  dataset: DatasetDefinition,
  name: string,
  accepted: readonly string[],
  source: InputSource,
): { ok: false; refusal: ParamRefusal } {
  const hint = acceptedHint(accepted);
  if (PROTOTYPE_KEYS.has(name)) return refuse('VALIDATION_ERROR', name, `Parameter name ${quoteValue(name)} is not allowed.`, hint);
  if (name === 'ticker' && source === 'agent') {
    return refuse('VALIDATION_ERROR', name, `"ticker" does not apply: ${dataset.title} is market-wide, not per ticker.`, hint);
  }
  return refuse('VALIDATION_ERROR', name, `Unknown parameter ${quoteValue(name)}.`, hint);
}

function checkParams(
  dataset: DatasetDefinition,
  ticker: unknown,
  query: Readonly<Record<string, unknown>>,
  source: InputSource,
): ValidatedRequest {
  let parsedTicker: string | undefined;
  if (dataset.ticker) {
    const checked = checkParam(dataset, 'ticker', dataset.ticker, ticker, source);
    if (!checked.ok) return checked;
    parsedTicker = typeof checked.value === 'string' ? checked.value : undefined;
  }

  const parsed = new Map<string, string | number>();
  for (const [name, schema] of Object.entries(dataset.query)) {
    // Own properties only: `constructor` or `toString` must not be read off the prototype.
    const raw = Object.hasOwn(query, name) ? query[name] : undefined;
    const checked = checkParam(dataset, name, schema, raw, source);
    if (!checked.ok) return checked;
    const value = checked.value;
    if (typeof value === 'string' || typeof value === 'number') parsed.set(name, value);
    // Booleans travel as the words the query string uses.
    else if (typeof value === 'boolean') parsed.set(name, String(value));
  }

  const from = parsed.get('from');
  const to = parsed.get('to');
  if (typeof from === 'string' && typeof to === 'string' && from > to) {
    return refuse('VALIDATION_ERROR', 'from', `"from" (${from}) is after "to" (${to}).`, 'Swap the dates or widen the range.');
  }
  return { ok: true, ticker: parsedTicker, query: Object.fromEntries(parsed) };
}

type CheckedParam = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly refusal: ParamRefusal };

function checkParam(dataset: DatasetDefinition, name: string, schema: z.ZodType, raw: unknown, source: InputSource): CheckedParam {
  if (raw === undefined) {
    const result = schema.safeParse(undefined);
    if (result.success) return { ok: true, value: result.data };
    return refuse('VALIDATION_ERROR', name, `Missing required parameter "${name}".`, describeParam(name, schema));
  }
  const shape = shapeOf(schema);
  const typed = asDeclaredType(raw, shape.type, source);
  if (typed === undefined) {
    // Agents often send a comma-separated list as a JSON list: say the one text to send,
    // when this parameter would take it.
    const joined =
      shape.type === 'string' && Array.isArray(raw) && raw.length > 0 && raw.every((item) => typeof item === 'string')
        ? raw.map((item) => item.trim()).join(',')
        : undefined;
    const accepted = joined === undefined ? undefined : [joined, joined.toUpperCase()].find((text) => schema.safeParse(text).success);
    // A JSON list of well-formed tickers that is also too long: the count is the fix to make, not the form.
    const tooMany =
      joined !== undefined && accepted === undefined && refusalCodeOf(schema) === 'TICKER_INVALID'
        ? tooManyTickers(joined, schema, undefined)
        : undefined;
    if (tooMany)
      return refuse('VALIDATION_ERROR', name, tooMany, `Send each part as one comma-separated text. ${describeParam(name, schema)}`);
    const listed =
      joined === undefined
        ? undefined
        : accepted !== undefined
          ? `Send the list as one comma-separated text: ${quoteValue(accepted)}.`
          : `Send one text, not a JSON list. ${describeParam(name, schema)}`;
    return refuse(
      refusalCodeOf(schema),
      name,
      `Invalid value ${quoteValue(raw)} for "${name}": expected ${article(shape.type)}.`,
      listed ?? describeParam(name, schema),
    );
  }
  if (typeof typed === 'string') {
    // Capped before any pattern runs on it, and checked whole before anything encodes it.
    const tooLong = typed.length > (shape.maxLength ?? DEFAULT_MAX_STRING_LENGTH);
    if (tooLong || LONE_SURROGATE.test(typed)) {
      const why = tooLong ? `is too long (${typed.length} characters)` : 'is not well-formed text';
      if (refusalCodeOf(schema) === 'TICKER_INVALID')
        return { ok: false, refusal: { ...tickerRefusal(dataset, name, ''), message: `The value of "${name}" ${why}.` } };
      return refuse(refusalCodeOf(schema), name, `The value of "${name}" ${why}.`, describeParam(name, schema));
    }
  }
  const result = schema.safeParse(typed);
  if (result.success) return { ok: true, value: result.data };
  const code = refusalCodeOf(schema);
  const range = typeof typed === 'number' ? outOfRange(shape.json, typed) : undefined;
  if (range !== undefined && typeof typed === 'number')
    return refuse(code, name, `${name} must be ${range}; got ${String(typed)}.`, describeParam(name, schema));
  const tooMany = code === 'TICKER_INVALID' ? tooManyTickers(typed, schema, shape.json.maxItems) : undefined;
  if (tooMany) return refuse('VALIDATION_ERROR', name, tooMany, describeParam(name, schema));
  if (code === 'TICKER_INVALID') return { ok: false, refusal: tickerRefusal(dataset, name, raw) };
  return refuse(code, name, `Invalid value ${quoteValue(raw)} for "${name}".`, describeParam(name, schema));
}

/**
 * The value in the parameter's declared JSON type, or undefined when it is not of that
 * type. On the wire everything is text, so a number must be plain decimal text; from an
 * agent a number is a JSON number or text of exactly the parameter's form ("5" for an
 * integer, not "5.5"): `true`, "0x10" and [5] are not limits.
 */
function asDeclaredType(raw: unknown, type: JsonType | undefined, source: InputSource): unknown {
  switch (type) {
    case 'number':
    case 'integer': {
      if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
      const number = fromText(raw, source === 'wire' ? 'number' : type);
      return typeof number === 'number' ? number : undefined;
    }
    case 'boolean': {
      const flag = fromText(raw, 'boolean');
      return typeof flag === 'boolean' ? flag : undefined;
    }
    case 'string':
      return typeof raw === 'string' ? raw : undefined;
    case 'array':
      // A list, or its values joined by commas (the form the catalog's own lists take, and a query string's).
      if (Array.isArray(raw)) return raw.every((item) => typeof item === 'string' || typeof item === 'number') ? raw : undefined;
      return typeof raw === 'string' && raw.length <= 4096 ? raw.split(',') : undefined;
    case undefined:
      return typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? raw : undefined;
  }
}

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'array';

interface ParamShape {
  readonly type: JsonType | undefined;
  readonly maxLength: number | undefined;
  readonly json: ParamJson;
}

interface ParamJson {
  type?: unknown;
  enum?: unknown[];
  description?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
}

/** Converted once per schema: the check runs on every call and every simulator request. */
const shapes = new WeakMap<z.ZodType, ParamShape>();

function shapeOf(schema: z.ZodType): ParamShape {
  const known = shapes.get(schema);
  if (known) return known;
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as ParamJson;
  const declared = typeof json.type === 'string' ? json.type : undefined;
  const fromEnum = json.enum?.every((v) => typeof v === 'string')
    ? 'string'
    : json.enum?.every((v) => typeof v === 'number')
      ? 'number'
      : undefined;
  const type = ['string', 'number', 'integer', 'boolean', 'array'].includes(declared ?? '') ? (declared as JsonType) : fromEnum;
  const shape = { type, maxLength: typeof json.maxLength === 'number' ? json.maxLength : undefined, json };
  shapes.set(schema, shape);
  return shape;
}

function article(type: JsonType | undefined): string {
  if (type === 'integer') return 'an integer';
  if (type === undefined) return 'a string or a number';
  if (type === 'array') return 'a list';
  return `a ${type}`;
}

function refuse(code: ApiErrorCode, param: string, message: string, hint: string): { ok: false; refusal: ParamRefusal } {
  return { ok: false, refusal: { code, param, message, hint } };
}

/** A parameter's range in words ("1 to 1000", "at most 100"), when it states one. */
function rangeWords(json: ParamJson): string | undefined {
  const [min, max] = [meantBound(json.minimum), meantBound(json.maximum)];
  if (min !== undefined && max !== undefined) return `${min} to ${max}`;
  if (max !== undefined) return `at most ${max}`;
  if (min !== undefined) return `at least ${min}`;
  return undefined;
}

/** The range `value` lies outside, in words; undefined when it lies inside (refused for another reason). */
function outOfRange(json: ParamJson, value: number): string | undefined {
  const [min, max] = [meantBound(json.minimum), meantBound(json.maximum)];
  const outside = (min !== undefined && value < min) || (max !== undefined && value > max);
  return outside ? rangeWords(json) : undefined;
}

function describeParam(name: string, schema: z.ZodType): string {
  const json = shapeOf(schema).json;
  if (json.enum) return `"${name}" must be one of: ${json.enum.map(String).join(', ')}.`;
  if (json.format === 'date') return `"${name}" must be a real calendar date as YYYY-MM-DD.`;
  const range = rangeWords(json);
  if (json.description === undefined)
    return range === undefined ? `See "${name}" in the tool's input schema.` : `"${name}" must be ${range}.`;
  return `"${name}": ${json.description}${range === undefined ? '' : ` (${range})`}`;
}

function tickerRefusal(dataset: DatasetDefinition, param: string, raw: unknown): ParamRefusal {
  // A list parameter (a document's ticker list as an array) is fixed as the text its values join.
  const value = typeof raw === 'string' ? raw : Array.isArray(raw) && raw.every((t) => typeof t === 'string') ? raw.join(',') : '';
  const message = `Invalid ticker ${quoteValue(raw)} for "${param}".`;
  const upper = value.trim().toUpperCase();
  // A filter the upstream does not take is applied here, so its schema is among the tool's own (shaping).
  const schema = param === 'ticker' ? dataset.ticker : (dataset.query[param] ?? dataset.shaping?.[param]);
  const pattern = (schema && patternOf(schema)) ?? GENERAL_TICKER_PATTERN;
  if (schema && (param === 'tickers' || param === 'with_tickers')) {
    // Lists differ by tool (a filter takes 1 to 10, correlations 2 to 10): the fix offered
    // is one this parameter's own schema accepts, else the parameter's own description.
    const fixed = upper
      .split(/[,;\s]+/)
      .map((t) => t.trim())
      .filter(Boolean)
      .join(',');
    // Checked in the form the schema takes: the text itself, or the list it joins (which the text stands for).
    const fixable = fixed !== value && schema.safeParse(shapeOf(schema).type === 'array' ? fixed.split(',') : fixed).success;
    return { code: 'TICKER_INVALID', param, message, hint: fixable ? `Use "${fixed}".` : describeParam(param, schema) };
  }
  if (upper !== value && pattern.test(upper))
    return { code: 'TICKER_INVALID', param, message, hint: `Tickers are upper case: use "${upper}".` };
  if (pattern.source === DEALER_TICKER_PATTERN.source) {
    // A well-formed ticker this dataset covers in no spelling (BRK.B, a longer symbol): say what
    // it covers, not "fix the spelling".
    if (GENERAL_TICKER_PATTERN.test(upper) && upper.length <= 12)
      return {
        code: 'TICKER_INVALID',
        param,
        kind: 'NOT_FOUND',
        message: `${quoteValue(upper)} is not covered here: this dataset covers tickers of 1 to 5 letters only (index ETFs, indices and single names such as SPY, QQQ, SPX, AAPL), so a class share with a dotted suffix or a longer symbol has no spelling it takes.`,
        hint: 'Do not retry with another spelling; the other tools (short interest, volatility, dark pool, fundamentals) take this ticker as it is.',
      };
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
  const pattern = shapeOf(schema).json.pattern;
  return pattern === undefined ? undefined : new RegExp(pattern);
}
