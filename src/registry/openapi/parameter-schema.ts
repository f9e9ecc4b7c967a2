/**
 * A document's parameter as the zod schema a tool checks an agent's value against. What
 * the document states is what is checked (type, bounds, every pattern, enum, format), so
 * nothing it would refuse is sent; upstream patterns run only on a linear-time engine;
 * upstream text (descriptions, enum values, defaults) is capped and marked as the
 * registry's word wherever a model reads it.
 */
import * as z from 'zod';
import { DATASETS } from '../../catalog/datasets.js';
import { paramJsonSchemaOnce, type ParamJson } from '../../catalog/param-json-memo.js';
import * as p from '../../catalog/params.js';
import { isRequiredParam } from '../../catalog/validate.js';
import { registryDefault, registryEnumValue, registryPatternShown, registryText } from '../../catalog/registry-text.js';
import { compileUpstreamPattern, type UpstreamPattern } from '../../catalog/upstream-pattern.js';
import { acceptedSample } from '../../catalog/param-samples.js';
import { shown, type DocumentParameter } from './operations.js';
import { statedExamples, withAcceptedExamples } from './stated-examples.js';
import type { PlainSchema } from './schema-forms.js';

/** What marks the upstream's own words in a tool's text. */
export const NOT_REVIEWED = '[not reviewed]';
/** Upstream strings without a length limit get this one. */
const DEFAULT_MAX_LENGTH = p.UNSTATED_MAX_LENGTH;
/** Enum values the tool list carries at most: a longer list is the document's data, not a choice. */
const MAX_ENUM_VALUES = 60;

/** The JSON Schema keywords a parameter needs, nothing else: what is compared with the catalog's own. */
export type CleanSchema = Record<string, unknown>;

export function cleanSchema(schema: PlainSchema): CleanSchema {
  const clean: CleanSchema = { type: schema.type ?? 'string' };
  const [pattern] = schema.patterns ?? [];
  if (pattern !== undefined) clean['pattern'] = pattern;
  for (const key of ['format', 'minimum', 'maximum', 'minLength', 'maxLength', 'enum'] as const)
    if (schema[key] !== undefined) clean[key] = schema[key];
  if (schema.type === 'array') {
    if (schema.items) clean['items'] = cleanSchema(schema.items);
    if (schema.minItems !== undefined) clean['minItems'] = schema.minItems;
    if (schema.maxItems !== undefined) clean['maxItems'] = schema.maxItems;
  }
  // A default is shown to the agent (in words, in the description): a value, never prose.
  const fallback = isDefaultValue(schema.default) ? registryDefault(schema.default) : undefined;
  if (fallback !== undefined) clean['default'] = fallback;
  return clean;
}

const isDefaultValue = (value: unknown): value is string | number | boolean =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * JSON with keys sorted, so that key order never counts as a difference. Sorted by code unit,
 * not localeCompare: any one order does, and the first localeCompare of a process sets up
 * ICU's collator (tens of ms of a first start, BENCHMARKS.md).
 */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

let reviewed: Set<string> | undefined;

/** Patterns of our own catalog: reviewed, safe on any engine (`(\.[A-Z0-9]+)*` is unambiguous). */
function reviewedPatterns(): Set<string> {
  reviewed ??= new Set(
    DATASETS.flatMap((d) => [...(d.ticker ? [d.ticker] : []), ...Object.values(d.query)])
      .map((schema) => paramJsonSchemaOnce(schema).schema['pattern'])
      .filter((pattern): pattern is string => typeof pattern === 'string'),
  );
  return reviewed;
}

/** Our own patterns as the native engine runs them, by source. */
const nativePatterns = new Map<string, UpstreamPattern>();

/**
 * How a document's pattern is run. One of our catalog's own (an upstream that publishes the
 * spec's ticker pattern) runs on the native engine, as the catalog's own schemas run it, and is
 * advertised: it is reviewed. Compiling it on RE2 at first use was a tenth of importing a
 * 500-dataset registry (BENCHMARKS.md). Any other runs on RE2 (compileUpstreamPattern), or not at all.
 */
function patternOf(pattern: string): UpstreamPattern | undefined {
  if (!reviewedPatterns().has(pattern)) return compileUpstreamPattern(pattern);
  let native = nativePatterns.get(pattern);
  if (!native) {
    const expression = new RegExp(pattern);
    native = { test: (value) => expression.test(value), backtrackingSafe: true };
    nativePatterns.set(pattern, native);
  }
  return native;
}

/**
 * One document parameter as a zod schema, under its MCP-side `name`. `ours` is the
 * catalog's own schema for that name, if any: its reviewed words are kept where the
 * document gives none, and it stands in for a pattern no linear-time engine accepts.
 * Throws with a reason when the parameter cannot be offered at all.
 */
export function toZod(name: string, param: DocumentParameter, ours: z.ZodType | undefined): z.ZodType {
  let converted = convert(name, param.schema, ours);
  const checked = converted;
  const description = describe(name, param, ours, () => checked);
  if (description) converted = converted.describe(description);
  if (name === 'ticker' || name === 'tickers') converted = p.refusedAs(converted, 'TICKER_INVALID');
  if (name === 'contract') converted = p.refusedAs(converted, 'CONTRACT_SYMBOL_INVALID');
  return param.required ? converted : converted.optional();
}

/** A parameter as its tool advertises it (paramJsonSchema of toZod's schema), and whether a call must give it. */
export interface ParamPlan {
  readonly json: ParamJson;
  readonly required: boolean;
}

/**
 * What toZod's schema for this parameter advertises, and whether it is required, worked out
 * without making the schema: an imported dataset is listed from its plans and checks its
 * values with the zod schemas made at its first call (import.ts). Making and converting a zod
 * schema costs about 0.45 ms a parameter, which a registry whose parameters differ paid for
 * each of up to 600 at a first start. Throws as toZod does; test/catalog/parameter-plan.test.ts
 * holds the two to the same JSON, key order included.
 */
export function planParam(name: string, param: DocumentParameter, ours: z.ZodType | undefined): ParamPlan {
  const body = planBody(name, param.schema, ours);
  // The check made only where the words give an example to hold to it: most give none.
  const description = describe(name, param, ours, () => convert(name, param.schema, ours));
  if (body === OURS && ours) {
    // toZod's `ours`, described as this parameter is, and optional as it is.
    const own = paramJsonSchemaOnce(ours);
    const words = description ?? own.description;
    return {
      json: { schema: own.schema, ...(words === undefined ? {} : { description: words }) },
      required: param.required && isRequiredParam(ours),
    };
  }
  const { schema, defaulted } = body as Body;
  return { json: description ? { schema, description } : { schema }, required: param.required && !defaulted };
}

/**
 * A parameter's JSON Schema before its words, as zod's toJSONSchema writes it of the schema
 * scalar or arrayOf makes (key order included), and whether a default fills it when left out.
 */
interface Body {
  schema: Record<string, unknown>;
  defaulted: boolean;
}

/** The catalog's own schema stands in (a pattern no linear-time engine accepts). */
const OURS = Symbol('ours');

function planBody(name: string, schema: PlainSchema, ours: z.ZodType | undefined): Body | typeof OURS {
  if (schema.type === 'array') {
    const items = schema.items ?? { type: 'string' as const, nullable: false };
    if (items.type === 'array' || items.type === 'object') throw new Error(`"${shown(name)}" takes nested lists or objects`);
    // Without a schema of ours to stand in, a pattern no engine accepts throws in planScalar, as in toZod.
    const item = planScalar(`${name} item`, items, undefined);
    if (item === OURS) throw new Error(`pattern of "${shown(`${name} item`)}" is not accepted by the linear-time engine`);
    const listed = {
      ...(schema.minItems === undefined ? {} : { minItems: schema.minItems }),
      maxItems: Math.min(schema.maxItems ?? 100, 100),
    };
    return { schema: { ...listed, type: 'array', items: item.schema }, defaulted: false };
  }
  if (schema.type === 'object') throw new Error(`"${shown(name)}" takes an object, which this server does not send`);
  return planScalar(name, schema, ours);
}

function planScalar(name: string, given: PlainSchema, ours: z.ZodType | undefined): Body | typeof OURS {
  const { type, format, patterns } = given;
  if (type === 'boolean') return { schema: { type: 'boolean' }, defaulted: false };
  const values = given.enum?.slice(0, MAX_ENUM_VALUES);
  if (values) {
    const safe = values.filter((v) => typeof v === 'number' || (typeof v === 'string' && registryEnumValue(v) !== undefined));
    if (safe.length === 0) throw new Error(`enum of "${shown(name)}" has no value in the safe character set`);
    if (safe.every((v): v is number => typeof v === 'number')) return { schema: { type: 'number' }, defaulted: false };
    return { schema: { type: 'string', enum: enumOrder(safe.map(String)) }, defaulted: false };
  }
  const json = scalarJson(given);
  const tests: UpstreamPattern[] = [];
  let shownPattern: string | undefined;
  for (const [index, pattern] of (patterns ?? []).entries()) {
    const compiled = patternOf(pattern);
    if (!compiled) {
      if (ours) return OURS;
      throw new Error(`pattern of "${shown(name)}" is not accepted by the linear-time engine`);
    }
    tests.push(compiled);
    if (index === 0 && compiled.backtrackingSafe && registryPatternShown(pattern)) shownPattern = pattern;
  }
  const meta = {
    ...(shownPattern === undefined ? {} : { pattern: shownPattern }),
    ...(typeof format === 'string' && /^[a-z-]{1,20}$/.test(format) ? { format } : {}),
  };
  const own = zodJsonOf(json);
  const fallback = json['default'];
  if (fallback === undefined) return { schema: { ...own, ...meta }, defaulted: false };
  // The default stands for a value left out when it passes the checks made after it (zod does not check the default itself).
  const defaulted =
    tests.every((test) => typeof fallback !== 'string' || test.test(fallback)) &&
    (format !== 'date' || (typeof fallback === 'string' && p.isRealCalendarDate(fallback)));
  return { schema: { default: fallback, ...meta, ...own }, defaulted };
}

/** The values of z.enum(values) as its JSON Schema lists them: kept as an object's keys (integer-like ones first, once each). */
function enumOrder(values: readonly string[]): string[] {
  return Object.values(Object.fromEntries(values.map((value) => [value, value])));
}

/** What zod's toJSONSchema writes of z.fromJSONSchema(json), before checks and metadata: an integer is bounded to safe integers. */
function zodJsonOf(json: Record<string, unknown>): Record<string, unknown> {
  const bound = (key: string): Record<string, unknown> => (json[key] === undefined ? {} : { [key]: json[key] });
  if (json['type'] === 'integer') {
    const min = typeof json['minimum'] === 'number' ? json['minimum'] : Number.MIN_SAFE_INTEGER;
    const max = typeof json['maximum'] === 'number' ? json['maximum'] : Number.MAX_SAFE_INTEGER;
    return { type: 'integer', minimum: Math.max(min, Number.MIN_SAFE_INTEGER), maximum: Math.min(max, Number.MAX_SAFE_INTEGER) };
  }
  if (json['type'] === 'number') return { type: 'number', ...bound('minimum'), ...bound('maximum') };
  return { type: 'string', ...bound('minLength'), ...bound('maxLength') };
}

/** The JSON Schema a scalar's zod schema is made from (z.fromJSONSchema): its type, bounds and default. */
function scalarJson(given: PlainSchema): Record<string, unknown> {
  const { type } = given;
  const json: Record<string, unknown> = { type: type ?? 'string' };
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength'] as const) if (given[key] !== undefined) json[key] = given[key];
  if ((type ?? 'string') === 'string' && json['maxLength'] === undefined) json['maxLength'] = DEFAULT_MAX_LENGTH;
  // The document's default, when it is a value (never prose): applied as the upstream would, and shown.
  const fallback = isDefaultValue(given.default) ? registryDefault(given.default) : undefined;
  if (fallback !== undefined && typeof fallback === (type === 'integer' ? 'number' : (type ?? 'string'))) json['default'] = fallback;
  return json;
}

/**
 * The words a model reads beside the parameter, their examples held to the parameter's
 * check (`checked`, the schema toZod makes): an example it refuses is not shown, or gives
 * way to a catalog sample it takes (stated-examples.ts).
 */
function describe(name: string, param: DocumentParameter, ours: z.ZodType | undefined, checked: () => z.ZodType): string | undefined {
  const words = wordsOf(param, ours);
  if (words === undefined || statedExamples(words).length === 0) return words;
  const schema = checked();
  const accepts = (value: string): boolean => acceptsExample(schema, value);
  return withAcceptedExamples(words, accepts, acceptedSample(name, accepts)) || undefined;
}

/**
 * Whether an example written in text is a value the schema takes: as text, or as the number,
 * boolean or list (comma-separated) the text stands for, as an agent would send it.
 */
export function acceptsExample(schema: z.ZodType, value: string): boolean {
  const forms: unknown[] = [value];
  if (/^-?\d+(\.\d+)?$/.test(value)) forms.push(Number(value));
  if (value === 'true' || value === 'false') forms.push(value === 'true');
  if (value.includes(',')) forms.push(value.split(','));
  return forms.some((form) => schema.safeParse(form).success);
}

/** The words a model reads beside the parameter: the document's, marked (unless they are ours); else the catalog's own; else none. */
function wordsOf(param: DocumentParameter, ours: z.ZodType | undefined): string | undefined {
  const text = param.description === undefined ? '' : registryText(param.description, 150);
  const values = param.schema.enum ?? param.schema.items?.enum;
  // Enum values are the registry's too: a model reading them is told so, whatever else is said.
  const valuesNote = values ? ' Values from the API’s registry, not reviewed.' : '';
  // Read through the JSON Schema: an optional schema's own `description` is its inner one's, unread by zod 4.
  const own = ours ? paramJsonSchemaOnce(ours).description : undefined;
  // The document's words, when they are our reviewed ones to the letter, are read as ours: the
  // mark on them cost tools/list tokens and warned of nothing.
  if (text && text !== own) return `${NOT_REVIEWED} ${text}${valuesNote}`;
  if (own) return `${own}${valuesNote}`;
  return values ? `${NOT_REVIEWED} values from the API’s registry` : undefined;
}

function convert(name: string, schema: PlainSchema, ours: z.ZodType | undefined): z.ZodType {
  if (schema.type === 'array') return arrayOf(name, schema);
  if (schema.type === 'object') throw new Error(`"${shown(name)}" takes an object, which this server does not send`);
  return scalar(name, schema, ours);
}

/**
 * A list parameter: the agent gives a JSON array (or the values joined by commas, as the
 * catalog's own lists take them); it is checked item by item and carried as one
 * comma-joined text, which the request puts on the wire as the document's style says
 * (src/api/request-target.ts).
 */
function arrayOf(name: string, schema: PlainSchema): z.ZodType {
  const items = schema.items ?? { type: 'string' as const, nullable: false };
  if (items.type === 'array' || items.type === 'object') throw new Error(`"${shown(name)}" takes nested lists or objects`);
  let list = z.array(scalar(`${name} item`, items, undefined));
  if (schema.minItems !== undefined) list = list.min(schema.minItems);
  list = list.max(Math.min(schema.maxItems ?? 100, 100));
  // A comma inside a value would split it on the wire: such a value is not sent.
  return list
    .refine((values) => values.every((v) => !String(v).includes(',')), { message: 'a value holds a comma' })
    .transform((values) => values.map(String).join(','));
}

function scalar(name: string, given: PlainSchema, ours: z.ZodType | undefined): z.ZodType {
  const { type, format, patterns } = given;
  if (type === 'boolean') {
    // Sent as the text the API reads; a boolean is checked as a boolean first.
    return z.boolean().transform((value) => String(value));
  }
  const values = given.enum?.slice(0, MAX_ENUM_VALUES);
  if (values) {
    // Values outside the safe set are dropped (the agent cannot send them); none left, no parameter.
    const safe = values.filter((v) => typeof v === 'number' || (typeof v === 'string' && registryEnumValue(v) !== undefined));
    if (safe.length === 0) throw new Error(`enum of "${shown(name)}" has no value in the safe character set`);
    if (safe.every((v): v is string => typeof v === 'string')) return z.enum(safe as [string, ...string[]]);
    if (safe.every((v): v is number => typeof v === 'number'))
      return z.number().refine((v) => safe.includes(v), { message: `one of ${safe.join(', ')}` });
    // Mixed: every value as the text the wire carries.
    const texts = safe.map(String);
    return z.enum(texts as [string, ...string[]]);
  }
  let converted: z.ZodType = z.fromJSONSchema(scalarJson(given));
  for (const [index, pattern] of (patterns ?? []).entries()) {
    const compiled = patternOf(pattern);
    if (!compiled) {
      // No linear-time engine accepts it: our own schema for that name, or none at all.
      if (ours) return ours;
      throw new Error(`pattern of "${shown(name)}" is not accepted by the linear-time engine`);
    }
    converted = converted.refine((value) => typeof value !== 'string' || compiled.test(value), { message: 'does not match the pattern' });
    // Hosts may run an advertised pattern on a backtracking engine: advertise only the first, and only a safe one.
    if (index === 0 && compiled.backtrackingSafe && registryPatternShown(pattern)) converted = converted.meta({ pattern });
  }
  if (format === 'date')
    converted = converted.refine((v) => typeof v === 'string' && p.isRealCalendarDate(v), { message: 'not a real calendar date' });
  if (typeof format === 'string' && /^[a-z-]{1,20}$/.test(format)) converted = converted.meta({ format });
  return converted;
}
