/**
 * The upstream's /v1/openapi.json → datasets. The document is data to validate, never
 * code to trust: each operation is parsed on its own and skipped with a reason when it
 * does not fit; tool names that would collide are skipped; upstream patterns run only on
 * a linear-time engine; upstream text passes a filter stricter than data's.
 *
 * A dataset we know is its GET path, which the spec fixes; operation ids are left open
 * by the spec, so the operation on that path updates the dataset's parameters whatever
 * its id (dotted, camelCase, snake_case, kebab-case), while its tool name, reviewed text
 * and behaviour stay ours. An operation on a path we do not know is imported under a
 * portable id derived from its own id or its path. A dataset is retired only when a
 * freshly fetched document that lists most of the catalog's paths lacks its path.
 */
import * as z from 'zod';
import { DATASETS } from './datasets.js';
import { paramJsonSchemaOnce } from './param-json-memo.js';
import { roleOf } from './param-roles.js';
import * as p from './params.js';
import { compileUpstreamPattern } from './upstream-pattern.js';
import { registryDefault, registryEnumValue, registryPath, registryPatternShown, registryText } from './registry-text.js';
import type { CacheClass, DatasetDefinition } from './types.js';

/** An upstream id in any common form; anything else is replaced by one derived from the path. */
const UPSTREAM_ID = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;
/** Ours: dotted snake_case, which the MCP layer turns into a tool name. */
const PORTABLE_ID = /^[a-z][a-z0-9_]{0,40}(\.[a-z0-9_]{1,40}){0,2}$/;
const PATH = /^\/v1(\/([a-z0-9][a-z0-9_-]{0,40}|\{ticker\})){1,6}$/;
/** snake_case, camelCase or kebab-case: the tool takes it under its snake_case form. */
const PARAM_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,40}$/;
/** Ours the upstream may leave out: applied here over its pages (src/mcp/local-pages.ts). */
const LOCAL_CAPABLE = ['limit', 'tickers', 'side', 'session_date', 'from', 'to'] as const;
const CACHE_CLASSES: readonly CacheClass[] = ['intraday', 'daily', 'filings', 'static'];
const MAX_PARAMS = 20;
/** Datasets the upstream may add beyond the catalog: enough for growth, not a 6 MB tools/list. */
export const MAX_IMPORTED_DATASETS = 100;
/** Operations looked at in one document; the rest are skipped. */
const MAX_PATHS = 500;
/** Upstream strings without a length limit get this one. */
const DEFAULT_MAX_LENGTH = 256;
/** What marks the upstream's own words in a tool's text. */
const NOT_REVIEWED = '[not reviewed]';
/** Paths that are meta endpoints, never datasets. */
const META_PATHS = new Set(['/v1/discover', '/v1/health', '/v1/openapi.json']);

const parameterSchema = z.object({
  name: z.string().regex(PARAM_NAME, 'parameter name is not a plain identifier'),
  in: z.enum(['path', 'query']),
  required: z.boolean().optional(),
  description: z.string().max(5000).optional(),
  schema: z.looseObject({
    type: z.enum(['string', 'integer', 'number', 'boolean']),
    pattern: z.string().max(300).optional(),
    format: z.string().max(30).optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    minLength: z.number().int().min(0).optional(),
    maxLength: z.number().int().min(0).optional(),
    enum: z
      .array(z.union([z.string(), z.number()]))
      .min(1)
      .max(50)
      .optional(),
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
  }),
});

const operationSchema = z.object({
  operationId: z.string().max(200).optional(),
  summary: z.string().max(5000).optional(),
  description: z.string().max(20_000).optional(),
  parameters: z.array(parameterSchema).max(MAX_PARAMS).default([]),
  'x-on-demand': z.boolean().optional(),
  'x-cache-class': z.enum(CACHE_CLASSES).optional(),
});

type RawParameter = z.infer<typeof parameterSchema>;
type CleanSchema = Record<string, unknown>;

export interface ImportReport {
  datasets: DatasetDefinition[];
  /** Operation ids (portable form) of datasets the catalog did not know. */
  added: string[];
  /** Catalog datasets the document no longer lists, and why they were retired. */
  retired: { operationId: string; reason: string }[];
  /** Catalog datasets absent from a document that does not look complete: kept, with why. */
  keptAbsent: string[];
  /** Catalog datasets whose path or parameters the upstream changed. */
  changed: string[];
  skipped: { path: string; reason: string }[];
  /** Paths whose operation was taken: what is safe to keep on disk. */
  accepted: string[];
}

export interface ImportOptions {
  catalog?: readonly DatasetDefinition[];
  /** Tool names already taken by tools that are not datasets (api_status). */
  reservedToolNames?: readonly string[];
  /** An operation id → its tool name (the MCP layer's rule). */
  toolNameOf?: (operationId: string) => string;
  /**
   * Whether absence may retire a catalog dataset: only for a freshly fetched document, never
   * for the disk copy, which holds only the operations once accepted.
   */
  fresh?: boolean;
  /**
   * Retirements the disk copy carries, made on a fresh document's evidence: still retired
   * while the copy lacks their path.
   */
  retired?: ImportReport['retired'];
}

/** Share of the catalog's paths a document must list before absence counts as retirement. */
const COMPLETE_SHARE = 0.5;

/**
 * Our portable id for an upstream operation: `getEtfFlowsByTicker`, `etf-flows-by-ticker`
 * and `etf.flows_by_ticker` all become `etf.flows_by_ticker`-like ids; a missing or odd id
 * is derived from the path (`/v1/etf/flows-by-ticker/{ticker}` → `etf.flows_by_ticker`).
 * The upstream's `namespace` (see namespaceOf), when it has one, is left out.
 */
export function portableOperationId(raw: unknown, path: string, namespace = ''): string {
  if (typeof raw === 'string' && UPSTREAM_ID.test(raw)) {
    const snake = snakeId(raw);
    const bare = namespace && underscored(snake).startsWith(namespace) ? snake.slice(namespace.length) : snake;
    if (PORTABLE_ID.test(bare)) return bare;
  }
  const segments = path
    .split('/')
    .slice(2)
    .filter((s) => s !== '' && !s.startsWith('{'))
    .map((s) =>
      s
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, ''),
    )
    .filter(Boolean);
  const [group, ...rest] = segments;
  const id = rest.length > 0 ? `${group}.${rest.join('_')}` : (group ?? 'dataset');
  return /^[a-z]/.test(id) ? id.slice(0, 80) : `d_${id}`.slice(0, 80);
}

/** An upstream id in snake form: `getEtfFlowsByTicker` → `etf_flows_by_ticker`, kebab and dotted ids lower-cased. */
function snakeId(raw: string): string {
  return raw
    .replace(/^get(?=[A-Z])/, '')
    .replace(/^get[_.-]/i, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/-/g, '_')
    .replace(/_+/g, '_');
}

const underscored = (id: string): string => id.replace(/\./g, '_');

/**
 * A prefix the upstream puts before every id (`marketdata.` in `marketdata.etf_flows`), learnt
 * from the operations on paths we know: their ids are ours behind it. Stripped from imported
 * ids, so that a dataset the catalog does not know gets the tool name it would get from an
 * upstream without the prefix. Two known operations at least, all agreeing; else none.
 */
function namespaceOf(entries: readonly (readonly [string, unknown])[], byPath: ReadonlyMap<string, DatasetDefinition>): string {
  const prefixes = new Set<string>();
  let known = 0;
  for (const [path, item] of entries) {
    const dataset = byPath.get(path);
    const get: unknown = typeof item === 'object' && item !== null ? (item as { get?: unknown }).get : undefined;
    const raw: unknown = typeof get === 'object' && get !== null ? (get as { operationId?: unknown }).operationId : undefined;
    if (!dataset || typeof raw !== 'string' || !UPSTREAM_ID.test(raw)) continue;
    const theirs = underscored(snakeId(raw));
    const ours = underscored(dataset.operationId);
    if (!theirs.endsWith(ours)) return '';
    prefixes.add(theirs.slice(0, theirs.length - ours.length));
    known += 1;
  }
  const [only] = prefixes;
  return known >= 2 && prefixes.size === 1 && only !== undefined && /^[a-z][a-z0-9]*_$/.test(only) ? only : '';
}

const defaultToolName = (operationId: string): string => operationId.replace(/\./g, '_').slice(0, 64);

/** Built-in schemas by parameter name, used when the upstream's own cannot be trusted. */
const BUILT_IN: Record<string, z.ZodType> = {
  ticker: p.generalTicker,
  tickers: p.tickerList,
  contract: p.osiContractSymbol,
  cursor: p.cursor,
  from: p.fromDate,
  to: p.toDate,
  session_date: p.sessionDate,
  expiration: p.etTradingDate,
};

let reviewed: Set<string> | undefined;

/** Patterns of our own catalog: reviewed, safe on any engine (`(\.[A-Z0-9]+)*` is unambiguous). */
function reviewedPatterns(): Set<string> {
  reviewed ??= new Set(
    DATASETS.flatMap((d) => [...(d.ticker ? [d.ticker] : []), ...Object.values(d.query)])
      .map((schema) => jsonOf(schema)['pattern'])
      .filter((pattern): pattern is string => typeof pattern === 'string'),
  );
  return reviewed;
}

/** The JSON Schema keywords a parameter needs, nothing else. */
function cleanSchema(raw: RawParameter['schema']): CleanSchema {
  const clean: CleanSchema = { type: raw.type };
  for (const key of ['pattern', 'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'enum'] as const)
    if (raw[key] !== undefined) clean[key] = raw[key];
  // A default is shown to the agent (in words, in the description): a value, never prose.
  const fallback = raw.default === undefined ? undefined : registryDefault(raw.default);
  if (fallback !== undefined) clean['default'] = fallback;
  return clean;
}

/** JSON with keys sorted, so that key order never counts as a difference. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

function jsonOf(schema: z.ZodType): CleanSchema {
  const { schema: json } = paramJsonSchemaOnce(schema);
  return json;
}

/**
 * One upstream parameter as a zod schema. Throws with a reason when it cannot be used.
 * `builtIn` is our own schema for a parameter of that name, if we have one.
 */
function toZod(param: RawParameter, clean: CleanSchema, builtIn: z.ZodType | undefined): z.ZodType {
  // Upstream text is the registry's word, not ours: marked as such, like imported descriptions.
  const text = param.description === undefined ? '' : registryText(param.description, 150);
  const description = text ? `${NOT_REVIEWED} ${text}` : clean['enum'] ? `${NOT_REVIEWED} values from the API's registry` : undefined;
  const required = param.in === 'path' || param.required === true;
  let converted = convert(param.name, clean, builtIn);
  if (description) converted = converted.describe(description);
  if (param.name === 'ticker' || param.name === 'tickers') converted = p.refusedAs(converted, 'TICKER_INVALID');
  if (param.name === 'contract') converted = p.refusedAs(converted, 'CONTRACT_SYMBOL_INVALID');
  return required ? converted : converted.optional();
}

function convert(name: string, given: CleanSchema, builtIn: z.ZodType | undefined): z.ZodType {
  let clean = given;
  const { type, format, pattern, enum: values } = clean;
  if (type === 'boolean') {
    // Sent as the text the API reads; a boolean is checked as a boolean first.
    return z.boolean().transform((value) => String(value));
  }
  if (Array.isArray(values)) {
    // Values outside the safe set are dropped (the agent cannot send them); none left, no parameter.
    const safe = (values as unknown[]).filter(
      (v) => typeof v === 'number' || (typeof v === 'string' && registryEnumValue(v) !== undefined),
    );
    if (safe.length === 0) throw new Error(`enum of "${name}" has no value in the safe character set`);
    if (type === 'string') {
      if (!safe.every((v): v is string => typeof v === 'string')) throw new Error(`enum of "${name}" mixes types`);
      // A one-value enum would come back from zod as `const`; build string enums directly.
      return z.enum(safe as [string, ...string[]]);
    }
    clean = { ...clean, enum: safe };
  }
  const rest: CleanSchema = { ...clean };
  delete rest['pattern'];
  delete rest['format'];
  if (type === 'string' && rest['maxLength'] === undefined) rest['maxLength'] = DEFAULT_MAX_LENGTH;
  let converted: z.ZodType = z.fromJSONSchema(rest);
  if (typeof pattern === 'string') {
    const compiled = compileUpstreamPattern(pattern);
    if (!compiled) {
      // No linear-time engine accepts it: our own schema for that name, or none at all.
      if (builtIn) return builtIn;
      throw new Error(`pattern of "${name}" is not accepted by the linear-time engine`);
    }
    converted = converted.refine((value) => typeof value !== 'string' || compiled.test(value), { message: 'does not match the pattern' });
    // Hosts may run an advertised pattern on a backtracking engine: advertise only the safe ones.
    if ((compiled.backtrackingSafe || reviewedPatterns().has(pattern)) && registryPatternShown(pattern))
      converted = converted.meta({ pattern });
  }
  if (format === 'date')
    converted = converted.refine((v) => typeof v === 'string' && p.isRealCalendarDate(v), { message: 'not a real calendar date' });
  if (typeof format === 'string' && /^[a-z-]{1,20}$/.test(format)) converted = converted.meta({ format });
  return converted;
}

interface Parsed {
  ticker: z.ZodType<string> | undefined;
  /** Under MCP-side names. */
  query: Record<string, z.ZodType>;
  /** MCP-side name → the upstream's, where they differ. */
  upstreamNames: Record<string, string>;
}

/** `pageSize`, `page-size` → `page_size`: the portable form a tool takes. */
export function snakeName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
}

/**
 * The MCP-side name of an upstream parameter: a known dataset's own name for the role it
 * plays (`symbols` is our `tickers`), when the document does not also list ours; else its
 * snake_case form.
 */
function mcpNameOf(param: RawParameter, all: readonly RawParameter[], known: DatasetDefinition | undefined): string {
  const role = roleOf(param.name, param.schema.type);
  if (known && role && !Object.hasOwn(known.query, param.name)) {
    const ours = Object.entries({ ...known.query, ...(known.toolOutput ? {} : known.shaping) }).find(
      ([name, schema]) => roleOf(name, jsonOf(schema)['type'] as string | undefined) === role,
    );
    if (ours && !all.some((other) => other.name === ours[0])) return ours[0];
  }
  return snakeName(param.name);
}

/**
 * Parameters of new datasets already converted in this document, by what the upstream
 * states: a registry repeats most of its parameters (ticker, limit, a date range, a cursor)
 * across operations, and each is converted, and later shown as JSON Schema, once, not once
 * per dataset (start-up time, BENCHMARKS.md). A zod schema is never changed once made, so
 * datasets may share one.
 */
type ConvertedParams = Map<string, z.ZodType>;

/** The operation's parameters; a known dataset's own schema is reused wherever the upstream states the same one. */
function parseParameters(
  path: string,
  params: readonly RawParameter[],
  known: DatasetDefinition | undefined,
  converted: ConvertedParams,
): Parsed {
  const names = new Set<string>();
  let ticker: z.ZodType<string> | undefined;
  const query: Record<string, z.ZodType> = {};
  const upstreamNames: Record<string, string> = {};
  for (const param of params) {
    const name = param.in === 'path' ? param.name : mcpNameOf(param, params, known);
    if (names.has(name)) throw new Error(`parameter "${registryText(param.name, 41)}" is declared twice`);
    names.add(name);
    const clean = cleanSchema(param.schema);
    const ours = name === 'ticker' && known?.ticker ? known.ticker : known?.query[name];
    const oursRequired = ours !== undefined && (param.in === 'path' ? known?.ticker === ours : !ours.safeParse(undefined).success);
    const same =
      ours !== undefined &&
      oursRequired === (param.in === 'path' || param.required === true) &&
      canonical(jsonOf(ours)) === canonical(clean);
    const schema = same && ours ? ours : convertOnce({ ...param, name }, clean, ours, converted);
    if (param.in === 'path') {
      if (param.name !== 'ticker') throw new Error('path has parameters other than one {ticker}');
      ticker = schema as z.ZodType<string>;
    } else {
      query[name] = schema;
      if (name !== param.name) upstreamNames[name] = param.name;
    }
  }
  if (path.includes('{ticker}') !== (ticker !== undefined)) throw new Error('path and parameters disagree on {ticker}');
  return { ticker, query, upstreamNames };
}

/** toZod, once per parameter as the upstream states it, for a dataset the catalog does not know. */
function convertOnce(param: RawParameter, clean: CleanSchema, ours: z.ZodType | undefined, converted: ConvertedParams): z.ZodType {
  // A known dataset's own schema takes part in the conversion: those are not shared.
  if (ours) return toZod(param, clean, ours);
  // cleanSchema builds its keys in one order: plain JSON is exact here.
  const key = JSON.stringify([param.name, param.in, param.required === true, param.description ?? null, clean]);
  let schema = converted.get(key);
  if (!schema) {
    schema = toZod(param, clean, BUILT_IN[param.name]);
    converted.set(key, schema);
  }
  return schema;
}

/**
 * Ours the upstream does not offer, kept as MCP-side parameters and applied over its pages;
 * a view tool (the dealer history) shapes everything itself already.
 */
function localParamsOf(known: DatasetDefinition, offered: Readonly<Record<string, z.ZodType>>): Record<string, z.ZodType> {
  if (known.toolOutput) return {};
  const local: Record<string, z.ZodType> = {};
  for (const name of LOCAL_CAPABLE) {
    const schema = known.query[name];
    // A required one is the question itself (the tickers of a correlation), not a filter to apply here.
    if (schema && !Object.hasOwn(offered, name) && schema.safeParse(undefined).success) local[name] = schema;
  }
  return local;
}

export function datasetsFromOpenApi(document: unknown, options: ImportOptions = {}): ImportReport {
  const catalog = options.catalog ?? DATASETS;
  const nameOf = options.toolNameOf ?? defaultToolName;
  const report: ImportReport = { datasets: [], added: [], changed: [], skipped: [], accepted: [], retired: [], keptAbsent: [] };
  // Bound by path, the one thing the spec fixes for every dataset.
  const byPath = new Map<string, DatasetDefinition>(catalog.map((d) => [d.path, d]));
  // Tool names belong to the catalog first, then to the first upstream operation that claims one.
  const owners = new Map<string, string>(catalog.map((d) => [nameOf(d.operationId), d.operationId]));
  for (const reserved of options.reservedToolNames ?? []) owners.set(reserved, '');
  const seen = new Set<string>();
  const converted: ConvertedParams = new Map();
  /** Catalog paths in the document, usable or not. */
  const present = new Set<string>();
  const paths = typeof document === 'object' && document !== null ? (document as { paths?: unknown }).paths : undefined;
  if (typeof paths !== 'object' || paths === null || Array.isArray(paths)) return { ...report, datasets: [...catalog] };

  const entries = Object.entries(paths as Record<string, unknown>);
  const namespace = namespaceOf(entries, byPath);
  for (const [index, [path, item]] of entries.entries()) {
    const where = registryPath(path, 120) || '(unnamed path)';
    const skip = (reason: string): void => void report.skipped.push({ path: where, reason });
    if (META_PATHS.has(path)) continue;
    if (index >= MAX_PATHS) {
      skip(`more than ${MAX_PATHS} paths in the document`);
      break;
    }
    const get: unknown = typeof item === 'object' && item !== null ? (item as { get?: unknown }).get : undefined;
    if (typeof get === 'object' && get !== null && String((get as { operationId?: unknown }).operationId).startsWith('meta.')) continue;
    const rawId: unknown = typeof get === 'object' && get !== null ? (get as { operationId?: unknown }).operationId : undefined;
    const known = byPath.get(path);
    if (known) present.add(path);
    const parsed = operationSchema.safeParse(get);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      skip(`operation is not usable: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'invalid'}`);
      continue;
    }
    const op = parsed.data;
    // A dataset we know keeps our id (its tool name); another gets a portable one.
    const operationId = known ? known.operationId : portableOperationId(rawId, path, namespace);
    if (!PATH.test(path) || (path.match(/\{ticker\}/g) ?? []).length > 1) {
      skip('path has parameters other than one {ticker}');
      continue;
    }
    if (seen.has(operationId)) {
      skip(`operation id ${operationId} appears twice`);
      continue;
    }
    const toolName = nameOf(operationId);
    const owner = owners.get(toolName);
    if (owner !== undefined && owner !== operationId) {
      skip(`tool name ${toolName} is already taken${owner ? ` by ${owner}` : ''}`);
      continue;
    }
    if (!known && report.added.length >= MAX_IMPORTED_DATASETS) {
      skip(`more than ${MAX_IMPORTED_DATASETS} datasets added by the upstream`);
      continue;
    }
    let params: Parsed;
    try {
      params = parseParameters(path, op.parameters, known, converted);
    } catch (error) {
      skip(error instanceof Error ? error.message : 'a parameter could not be converted');
      continue;
    }
    seen.add(operationId);
    owners.set(toolName, operationId);
    report.accepted.push(path);
    const shape = {
      path: path as `/v1/${string}`,
      ...(params.ticker ? { ticker: params.ticker } : {}),
      query: params.query,
    };
    if (!known) {
      const title = registryText(op.summary ?? '', 60) || operationId;
      // Short: the tool list is read on every turn, and length is what repetition buys.
      const text = registryText(op.description ?? op.summary ?? '', 200);
      report.added.push(operationId);
      report.datasets.push({
        operationId,
        title: `${title} ${NOT_REVIEWED}`,
        // Marked, so that the agent weighs it as the registry's word, not ours.
        description: `[Dataset from the API's registry; text not reviewed] ${text || title}`,
        ...shape,
        ...(Object.keys(params.upstreamNames).length > 0 ? { upstreamNames: params.upstreamNames } : {}),
        onDemand: op['x-on-demand'] === true,
        cacheClass: op['x-cache-class'] ?? 'daily',
      });
      continue;
    }
    const local = localParamsOf(known, params.query);
    const renamed = Object.keys(params.upstreamNames).length > 0;
    const unchanged =
      !renamed &&
      Object.keys(local).length === 0 &&
      known.path === path &&
      known.ticker === params.ticker &&
      Object.keys(known.query).length === Object.keys(params.query).length &&
      Object.entries(params.query).every(([name, schema]) => known.query[name] === schema);
    if (unchanged) {
      report.datasets.push(known);
      continue;
    }
    // Upstream wins on path and parameters; reviewed text and behaviour flags stay ours.
    report.changed.push(operationId);
    const merged: DatasetDefinition = {
      ...known,
      ...shape,
      ...(renamed ? { upstreamNames: params.upstreamNames } : {}),
      ...(Object.keys(local).length > 0 ? { localParams: Object.keys(local), shaping: { ...known.shaping, ...local } } : {}),
    };
    // The ticker follows the upstream: one moved to the query is no longer a path parameter.
    if (!params.ticker) delete (merged as { ticker?: unknown }).ticker;
    report.datasets.push(merged);
  }
  // A document with no usable operation is broken, not a retirement of every dataset.
  if (report.accepted.length === 0) return { ...report, datasets: [...catalog] };
  // A dataset whose operation came garbled keeps our definition. One the document does not
  // list is retired only on evidence: a fresh document that lists most of the catalog's paths.
  const complete = options.fresh !== false && present.size > catalog.length * COMPLETE_SHARE;
  const retiredBefore = new Map((options.retired ?? []).map((r) => [r.operationId, r.reason]));
  for (const dataset of catalog) {
    if (seen.has(dataset.operationId)) continue;
    const before = present.has(dataset.path) ? undefined : retiredBefore.get(dataset.operationId);
    if (before !== undefined) report.retired.push({ operationId: dataset.operationId, reason: before });
    else if (present.has(dataset.path) || !complete) {
      if (!present.has(dataset.path)) report.keptAbsent.push(dataset.operationId);
      report.datasets.push(dataset);
    } else
      report.retired.push({
        operationId: dataset.operationId,
        reason: `the upstream's document lists ${present.size} of the catalog's ${catalog.length} paths but not ${dataset.path}`,
      });
  }
  return report;
}
