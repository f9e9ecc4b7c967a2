/**
 * The upstream's /v1/openapi.json → datasets. The document is data to validate, never
 * code to trust: its operations are read one at a time, each cleaned and its references
 * resolved as it is read (document-source.ts, dereference.ts), as OpenAPI allows them to be
 * written (operations.ts, schema-forms.ts), each taken or skipped on its own with a reason;
 * tool names that would collide are skipped; upstream patterns run only on a linear-time
 * engine; upstream text is capped and marked. An operation beyond the cap on datasets the
 * upstream adds is skipped without being read (a malformed one says so no more: the cap is
 * its reason), so that a first start costs what the datasets offered cost.
 *
 * A dataset we know is its route, which the spec fixes (its GET path, whatever the
 * document calls its path variable); operation ids are left open by the spec, so the
 * operation on that route gives the dataset its parameters whatever its id, while its
 * tool name, reviewed text and behaviour stay ours. **The document decides what is sent**:
 * a known dataset takes exactly the document's parameters, names, bounds, patterns and
 * enums; the catalog's own choices are used only where there is no document, and ours
 * the document does not offer (a page size, a ticker list, a session or range) are applied
 * here over its pages, never sent. An operation on a route we do not know is imported
 * under a portable id derived from its own id or its path. A dataset whose operation the
 * document lists but this server cannot read keeps its tool, which says so and refuses
 * calls rather than sending our guesses. A dataset is retired only when a freshly fetched
 * document that lists most of the catalog's routes lacks its route.
 */
import * as z from 'zod';
import { DATASETS } from '../../catalog/datasets.js';
import { paramJsonSchemaOnce, primeParamJson } from '../../catalog/param-json-memo.js';
import { isRequiredParam } from '../../catalog/validate.js';
import { primeToolInputJsonSchema, toolInputJsonSchema } from '../../mcp/arguments/input-schema.js';
import { roleOf } from '../../catalog/param-roles.js';
import * as p from '../../catalog/params.js';
import { registryPath, registryText } from '../../catalog/registry-text.js';
import type { CacheClass, DatasetDefinition, WireForm } from '../../catalog/types.js';
import { namespaceOf, portableOperationId, routeOf, snakeName, TOOL_PARAM_NAME } from './names.js';
import { plainSource, type DocumentSource } from './document-source.js';
import {
  listOperations,
  readListed,
  shown,
  Unusable,
  type DocumentOperation,
  type DocumentParameter,
  type ListedOperation,
} from './operations.js';
import { acceptsExample, canonical, cleanSchema, NOT_REVIEWED, planParam, toZod, type ParamPlan } from './parameter-schema.js';
import { withMeantPageSize } from './page-size.js';
import { rowFieldsOf } from './row-fields.js';
import { statedExamples, withAcceptedExamples } from './stated-examples.js';
import { saysLess } from './says-less.js';

/** Ours the upstream may leave out: applied here over its pages (src/mcp/reading/local-pages.ts). */
const LOCAL_CAPABLE = ['limit', 'tickers', 'side', 'session_date', 'from', 'to'] as const;
const CACHE_CLASSES: readonly CacheClass[] = ['intraday', 'daily', 'filings', 'static'];
/** Datasets the upstream may add beyond the catalog: enough for growth, not a 6 MB tools/list. */
export const MAX_IMPORTED_DATASETS = 100;
/** Operations looked at in one document; the rest are skipped. */
const MAX_PATHS = 500;
/** Paths that are meta endpoints, never datasets. */
const META_PATHS = new Set(['/v1/discover', '/v1/health', '/v1/openapi.json']);
/** A path as a tool's request may carry it: below /v1, plain segments and variables, never `.` or `..`. */
const PATH = /^\/v1(\/((?!\.+(\/|$))[A-Za-z0-9][A-Za-z0-9_.~-]{0,60}|\{[a-z][a-z0-9_]{0,63}\})){1,8}$/;
/** Path variables that are the ticker, whatever the document calls them (compared folded). */
const TICKER_NAMES = new Set(['ticker', 'symbol', 'underlying', 'stock', 'tickersymbol', 'underlyingsymbol', 'underlyingticker']);
const folded = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

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
  /** The document's keys (`paths`) whose operation was taken: what is safe to keep on disk. */
  accepted: string[];
  /** Operation id → the document's key of its operation, for each dataset read from the document. */
  keys: Record<string, string>;
}

/** What each import left to first use (withFieldsWhenAsked), by its report: a report stays data. */
const deferredOf = new WeakMap<ImportReport, (() => void)[]>();

/**
 * Reads now what an import left to first use (the row fields of the datasets the upstream
 * adds, from their success answers), so that its document is no longer held for them.
 */
export function settleImport(report: ImportReport): void {
  for (const read of deferredOf.get(report)?.splice(0) ?? []) read();
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
  /** Where requests go: relative `servers` in the document resolve below it. */
  baseUrl?: string | undefined;
}

/** Share of the catalog's paths a document must list before absence counts as retirement. */
const COMPLETE_SHARE = 0.5;

const defaultToolName = (operationId: string): string => operationId.replace(/\./g, '_').slice(0, 64);

/**
 * One of a dataset's parameters: what its tool advertises (planParam), and its zod schema,
 * made when first asked for and then shared by every dataset stating the parameter alike.
 */
interface Param {
  plan(): ParamPlan;
  zod(): z.ZodType;
}

/** The parameters of one dataset, under MCP-side names, and where each goes on the wire. */
interface Parsed {
  path: `/v1/${string}`;
  ticker: Param | undefined;
  query: Record<string, Param>;
  /** MCP-side name → the upstream's, where they differ. */
  upstreamNames: Record<string, string>;
  pathParams: string[];
  wireForms: Record<string, WireForm>;
}

/**
 * Parameters of new datasets already planned in this document, by what the upstream
 * states: a registry repeats most of its parameters across operations, and each is
 * planned once, its zod schema made once, not once per dataset (start-up time,
 * BENCHMARKS.md). A zod schema is never changed once made, so datasets may share one.
 */
type ConvertedParams = Map<string, Param>;

function jsonOf(schema: z.ZodType): Record<string, unknown> {
  return paramJsonSchemaOnce(schema).schema;
}

/**
 * The MCP-side name of an upstream query parameter: a known dataset's own name for the role
 * it plays (`symbols` is our `tickers`; a page size `limit`), when the document does not also
 * list ours; else its snake_case form.
 */
function mcpNameOf(param: DocumentParameter, all: readonly DocumentParameter[], known: DatasetDefinition | undefined): string {
  // Only a dataset we know has names of its own to give (a first start asked this of 600 parameters it then snake_cased).
  const role = known ? roleOf(param.name, param.schema.type, param.schema.format) : undefined;
  if (known && role && !Object.hasOwn(known.query, param.name)) {
    const ours = Object.entries({ ...known.query, ...(known.toolOutput ? {} : known.shaping) }).find(([name, schema]) => {
      const json = jsonOf(schema);
      return roleOf(name, json['type'] as string | undefined, json['format'] as string | undefined) === role;
    });
    if (ours && !all.some((other) => other.name === ours[0])) return ours[0];
    // A curated list the catalog gives no page size: the document's is `limit`, as in every other curated tool.
    if (!ours && role === 'pageSize' && !known.toolOutput && !all.some((other) => other.name === 'limit')) return 'limit';
  }
  const snake = snakeName(param.name);
  return TOOL_PARAM_NAME.test(snake) ? snake : `p_${snake}`.slice(0, 64);
}

/** The path variable that is the ticker, if one is. */
function tickerVariable(pathParams: readonly DocumentParameter[], known: DatasetDefinition | undefined): DocumentParameter | undefined {
  if (known?.ticker && pathParams.length === 1) return pathParams[0];
  const named = pathParams.filter((param) => TICKER_NAMES.has(folded(param.name)));
  return named.length === 1 && named[0]?.schema.type !== 'integer' && named[0]?.schema.type !== 'number' ? named[0] : undefined;
}

/** The operation's parameters; a known dataset's own schema is reused wherever the upstream states the same one. */
function parseParameters(op: DocumentOperation, known: DatasetDefinition | undefined, converted: ConvertedParams): Parsed {
  const names = new Set<string>();
  const query: Record<string, Param> = {};
  const upstreamNames: Record<string, string> = {};
  const pathParams: string[] = [];
  const wireForms: Record<string, WireForm> = {};
  // A page size's floor before anything is compared or converted: curated and added alike.
  const parameters = op.parameters.map(withMeantPageSize);
  const inPath = parameters.filter((param) => param.in === 'path');
  const tickerParam = tickerVariable(inPath, known);
  let ticker: Param | undefined;
  let path = op.path;
  for (const param of parameters) {
    const isTicker = param === tickerParam;
    const name = isTicker ? 'ticker' : param.in === 'path' ? mcpPathName(param.name) : mcpNameOf(param, parameters, known);
    if (names.has(name)) {
      // Two of the document's names for one of ours: an optional one is not offered, a required one cannot be.
      if (!param.required) continue;
      throw new Error(`parameters "${shown(param.name)}" and another both read as "${name}"`);
    }
    names.add(name);
    const ours = isTicker ? known?.ticker : known?.query[name];
    const oursRequired = ours !== undefined && (isTicker || !ours.safeParse(undefined).success);
    const clean = cleanSchema(param.schema);
    // The same schema, or one saying less than ours (says-less.ts): the catalog's reviewed check stands.
    const same =
      ours !== undefined &&
      oursRequired === param.required &&
      (canonical(jsonOf(ours)) === canonical(clean) || saysLess(clean, jsonOf(ours)));
    let schema: Param;
    try {
      schema = same && ours ? madeParam(ours) : convertOnce(name, param, ours, converted, known !== undefined);
    } catch (error) {
      // A parameter that cannot be offered: an optional one is left out; without a required one, no call can be made.
      if (!param.required) continue;
      throw error;
    }
    if (param.schema.type === 'array') wireForms[name] = { explode: param.explode, delimiter: param.delimiter };
    if (param.in === 'path') path = path.split(`{${param.name}}`).join(`{${name}}`);
    if (isTicker) {
      ticker = schema;
      continue;
    }
    query[name] = schema;
    if (param.in === 'path') pathParams.push(name);
    if (name !== param.name) upstreamNames[name] = param.name;
  }
  if (!PATH.test(path)) throw new Error(`path ${registryPath(path, 80)} is not a path below /v1 this server can request`);
  return { path: path as `/v1/${string}`, ticker, query, upstreamNames, pathParams, wireForms };
}

/** A path variable's MCP-side name: its snake_case form. */
function mcpPathName(name: string): string {
  const snake = snakeName(name);
  return TOOL_PARAM_NAME.test(snake) ? snake : `p_${snake}`.slice(0, 64);
}

/** A parameter whose zod schema is made already. */
function madeParam(schema: z.ZodType): Param {
  return { plan: () => ({ json: paramJsonSchemaOnce(schema), required: isRequiredParam(schema) }), zod: () => schema };
}

/**
 * A parameter as the upstream states it, once per statement, for a dataset the catalog does
 * not know: planned now (planParam throws as toZod would, for one that cannot be offered), its
 * zod schema made at its first use. A known dataset's own schema takes part in the conversion:
 * those are made now, and not shared.
 */
function convertOnce(
  name: string,
  param: DocumentParameter,
  ours: z.ZodType | undefined,
  converted: ConvertedParams,
  curated: boolean,
): Param {
  // A curated tool's page size is ours to describe, as its `limit` always is: the bounds and
  // default are the document's (said in words), the upstream's prose about its pages is not
  // repeated, marked, in every tool (27 o200k tokens each in a composed dialect's tools/list).
  if (curated && roleOf(param.name, param.schema.type, param.schema.format) === 'pageSize')
    return madeParam(toZod(name, { ...param, description: undefined }, ours));
  if (ours) return madeParam(toZod(name, param, ours));
  const key = JSON.stringify([name, param.in, param.required, param.description ?? null, param.schema]);
  let planned = converted.get(key);
  if (!planned) {
    // Own keys only: a parameter named `constructor` is no built-in (Object's would be read as a schema).
    const builtIn = Object.hasOwn(BUILT_IN, name) ? BUILT_IN[name] : undefined;
    const plan = planParam(name, param, builtIn);
    let schema: z.ZodType | undefined;
    planned = { plan: () => plan, zod: () => (schema ??= toZod(name, param, builtIn)) };
    converted.set(key, planned);
  }
  return planned;
}

/** The zod schemas of a dataset's parameters, made now. */
const zodOf = (params: Readonly<Record<string, Param>>): Record<string, z.ZodType> =>
  Object.fromEntries(Object.entries(params).map(([name, param]) => [name, param.zod()]));

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

/** A catalog dataset whose operation the document lists in a form this server cannot read: it says so, and sends nothing. */
function unreadableDataset(known: DatasetDefinition, reason: string): DatasetDefinition {
  // The reason quotes the document's names only as shown() passes them.
  return {
    ...known,
    description: `${known.description} Unavailable: the API's document describes this dataset in a form this server cannot read (${reason}).`,
    unreadable: reason,
  };
}

interface Context {
  report: ImportReport;
  catalog: readonly DatasetDefinition[];
  byRoute: ReadonlyMap<string, DatasetDefinition>;
  owners: Map<string, string>;
  nameOf: (operationId: string) => string;
  seen: Set<string>;
  converted: ConvertedParams;
  namespace: string;
  /** Reads the import left to first use (withFieldsWhenAsked), for settleImport. */
  deferred: (() => void)[];
}

/** Imports a document whose references are resolved (or that has none), read whole. */
export function datasetsFromOpenApi(document: unknown, options: ImportOptions = {}): ImportReport {
  return importOperations(plainSource(document), options);
}

/**
 * Operations read ahead of need in one crawl of the reader: the cap's worth and a few more at
 * first (an operation that cannot be used leaves its place to the next), then a few at a time.
 */
const FIRST_MARGIN = 4;
const READ_AHEAD = 16;

/** An operation the document lists that could not be read, with its place in the document. */
interface UnreadableOperation {
  key: string;
  path: string;
  at: number;
  reason: string;
}

/**
 * The document's operations as the import reads them: those of the catalog and the meta
 * routes first, then what the cap may take, in the document's order, read ahead of need a
 * crawl at a time. What could not be read is kept with its place, to be reported in order.
 */
class OperationCrawl {
  readonly read = new Map<ListedOperation, DocumentOperation>();
  readonly unreadable: UnreadableOperation[];
  private readonly position: Map<string, number>;
  private readonly candidates: ListedOperation[];
  private readUpTo = MAX_IMPORTED_DATASETS + FIRST_MARGIN;
  private candidate = 0;

  constructor(
    private readonly source: DocumentSource,
    readonly listed: ReturnType<typeof listOperations>,
    readonly ours: (entry: ListedOperation) => boolean,
  ) {
    this.position = new Map(source.keys.map((key, i) => [key, i]));
    this.candidates = listed.operations.filter((entry) => !ours(entry));
    const readFirst = listed.operations.filter(ours);
    source.prefetch([...readFirst, ...this.candidates.slice(0, this.readUpTo)].map((entry) => entry.key));
    this.unreadable = listed.skipped.map((s) => ({ ...s, at: this.placeOf(s.key) }));
    for (const entry of readFirst) this.readOne(entry);
    this.unreadable.sort((a, b) => a.at - b.at);
  }

  /** The next operation of the walk: read now if the cap takes it and it was not read yet (a new crawl when past the last). */
  next(entry: ListedOperation, takes: boolean): DocumentOperation | undefined {
    if (!this.ours(entry)) this.candidate += 1;
    if (takes && this.candidate > this.readUpTo) {
      this.source.prefetch(this.candidates.slice(this.candidate - 1, this.candidate - 1 + READ_AHEAD).map((c) => c.key));
      this.readUpTo = this.candidate - 1 + READ_AHEAD;
    }
    return this.read.get(entry) ?? (takes ? this.readOne(entry) : undefined);
  }

  private readOne(entry: ListedOperation): DocumentOperation | undefined {
    try {
      const op = readListed(this.source, entry);
      this.read.set(entry, op);
      return op;
    } catch (error) {
      if (!(error instanceof Unusable)) throw error;
      this.unreadable.push({ key: entry.key, path: entry.path, at: this.placeOf(entry.key), reason: error.message });
      return undefined;
    }
  }

  private placeOf(key: string): number {
    return this.position.get(key) ?? 0;
  }
}

/**
 * Imports a document read an operation at a time (document-source.ts): the catalog's routes
 * and the operations the cap takes are read; an operation the upstream adds beyond the cap
 * is skipped unread, so a registry of any size costs what the datasets offered cost.
 */
export function importOperations(source: DocumentSource, options: ImportOptions = {}): ImportReport {
  const catalog = options.catalog ?? DATASETS;
  // Bound by route, the one thing the spec fixes for every dataset.
  const byRoute = new Map<string, DatasetDefinition>(catalog.map((d) => [routeOf(d.path), d]));
  const knownOf = (entry: { path: string }): DatasetDefinition | undefined => byRoute.get(routeOf(entry.path));
  const isMeta = (entry: ListedOperation): boolean =>
    META_PATHS.has(entry.path) || (typeof entry.operationId === 'string' && entry.operationId.startsWith('meta.'));
  const crawl = new OperationCrawl(source, listOperations(source, options.baseUrl), (entry) => Boolean(knownOf(entry)) || isMeta(entry));
  const ctx = importContext(catalog, byRoute, options, crawl, knownOf);
  /** Catalog routes in the document, usable or not. */
  const present = keepUnreadableKnown(crawl.unreadable, knownOf, ctx);
  walkOperations(crawl, knownOf, isMeta, ctx, present);
  const { report } = ctx;
  report.skipped = [
    ...crawl.unreadable.sort((a, b) => a.at - b.at).map((s) => ({ path: registryPath(s.key, 120) || '(unnamed path)', reason: s.reason })),
    ...report.skipped,
  ];
  // A document with no usable operation is broken, not a retirement of every dataset.
  if (report.accepted.length === 0) return { ...report, datasets: [...catalog] };
  retireAbsent(ctx, present, options);
  report.datasets = inCatalogOrder(report.datasets, catalog);
  return report;
}

/** What every operation's import shares: the report, the tool names taken, the parameters converted, the namespace of ids. */
function importContext(
  catalog: readonly DatasetDefinition[],
  byRoute: ReadonlyMap<string, DatasetDefinition>,
  options: ImportOptions,
  crawl: OperationCrawl,
  knownOf: (entry: { path: string }) => DatasetDefinition | undefined,
): Context {
  const nameOf = options.toolNameOf ?? defaultToolName;
  const report: ImportReport = { datasets: [], added: [], changed: [], skipped: [], accepted: [], retired: [], keptAbsent: [], keys: {} };
  // Tool names belong to the catalog first, then to the first upstream operation that claims one.
  const owners = new Map<string, string>(catalog.map((d) => [nameOf(d.operationId), d.operationId]));
  for (const reserved of options.reservedToolNames ?? []) owners.set(reserved, '');
  const namespace = namespaceOf(
    [...crawl.read].flatMap(([entry, op]) => {
      const dataset = knownOf(entry);
      return dataset ? [{ raw: op.operationId, dataset }] : [];
    }),
  );
  const ctx: Context = { report, catalog, byRoute, owners, nameOf, seen: new Set(), converted: new Map(), deferred: [], namespace };
  deferredOf.set(report, ctx.deferred);
  return ctx;
}

/** A catalog dataset whose operation cannot be read keeps its tool, which says why; returns the catalog routes so found. */
function keepUnreadableKnown(
  unreadable: readonly UnreadableOperation[],
  knownOf: (entry: { path: string }) => DatasetDefinition | undefined,
  ctx: Context,
): Set<string> {
  const present = new Set<string>();
  for (const skipped of unreadable) {
    const known = knownOf(skipped);
    if (!known) continue;
    present.add(routeOf(known.path));
    ctx.seen.add(known.operationId);
    ctx.report.keys[known.operationId] = skipped.key;
    ctx.report.datasets.push(unreadableDataset(known, skipped.reason));
  }
  return present;
}

/** Every operation in the document's order: the catalog's imported, the cap's added, the rest skipped with the reason. */
function walkOperations(
  crawl: OperationCrawl,
  knownOf: (entry: { path: string }) => DatasetDefinition | undefined,
  isMeta: (entry: ListedOperation) => boolean,
  ctx: Context,
  present: Set<string>,
): void {
  const { report } = ctx;
  let index = 0;
  for (const entry of crawl.listed.operations) {
    const known = knownOf(entry);
    const meta = isMeta(entry);
    const takes = !known && !meta && report.added.length < MAX_IMPORTED_DATASETS;
    const op = crawl.next(entry, takes);
    // An operation that could not be read is no operation: reported with the others, and not counted.
    if ((known || meta || takes) && op === undefined) continue;
    const at = index;
    index += 1;
    if (meta) continue;
    if (at >= MAX_PATHS) {
      report.skipped.push({ path: registryPath(entry.key, 120), reason: `more than ${MAX_PATHS} paths in the document` });
      break;
    }
    if (known) present.add(routeOf(known.path));
    if (op) importOperation(op, known, ctx);
    // Beyond the cap, an operation the upstream adds is not read at all.
    else report.skipped.push({ path: registryPath(entry.key, 120) || '(unnamed path)', reason: CAP_REASON });
  }
}

/** The catalog's order first, then what the upstream added in its document's order: a tool list that does not reshuffle. */
function inCatalogOrder(datasets: DatasetDefinition[], catalog: readonly DatasetDefinition[]): DatasetDefinition[] {
  const order = new Map(catalog.map((d, i) => [d.operationId, i]));
  const rank = (d: DatasetDefinition): number => order.get(d.operationId) ?? catalog.length;
  return datasets
    .map((d, i) => ({ d, i }))
    .sort((a, b) => rank(a.d) - rank(b.d) || a.i - b.i)
    .map(({ d }) => d);
}

const CAP_REASON = `more than ${MAX_IMPORTED_DATASETS} datasets added by the upstream`;

/**
 * A dataset the upstream adds, its row fields read from its operation's success answers when
 * first asked for (a call with `fields`, src/mcp/documented-fields.ts), or when the import is
 * settled: resolving and reading the answer models of the 100 datasets a first start lists was
 * about a third of importing a registry written with `$ref` (BENCHMARKS.md), and most are
 * never called.
 */
function withFieldsWhenAsked(dataset: DatasetDefinition, op: DocumentOperation, deferred: (() => void)[]): DatasetDefinition {
  let unread: DocumentOperation | undefined = op;
  let fields: readonly string[] | undefined;
  // Once read, the operation (and the document it holds) is let go.
  const read = (): readonly string[] | undefined => {
    if (unread) [fields, unread] = [rowFieldsOf(unread.response), undefined];
    return fields;
  };
  Object.defineProperty(dataset, 'responseFields', { enumerable: true, configurable: true, get: read });
  deferred.push(read);
  return dataset;
}

/**
 * A dataset the upstream adds, listed from its parameters' plans: its tool's input JSON Schema
 * is what src/mcp/input-schema.ts makes of zod schemas advertising those plans (stand-ins,
 * which check nothing), and its `ticker` and `query` zod schemas are made when first read, at
 * its first call. A first start lists up to 100 such datasets, and calls few of them
 * (test/catalog/parameter-plan.test.ts holds tools/list to what the zod schemas give).
 */
function withParamsWhenAsked(fields: Omit<DatasetDefinition, 'ticker' | 'query'>, params: Parsed): DatasetDefinition {
  const { ticker } = params;
  const advertised: DatasetDefinition = {
    ...fields,
    ...(ticker ? { ticker: standIn(ticker.plan()) as z.ZodType<string> } : {}),
    query: Object.fromEntries(Object.entries(params.query).map(([name, param]) => [name, standIn(param.plan())])),
  };
  const dataset = { ...advertised };
  let query: Record<string, z.ZodType> | undefined;
  // In the places the stand-ins held, so that the dataset's fields keep their order.
  if (ticker) Object.defineProperty(dataset, 'ticker', { enumerable: true, configurable: true, get: () => ticker.zod() });
  Object.defineProperty(dataset, 'query', { enumerable: true, configurable: true, get: () => (query ??= zodOf(params.query)) });
  primeToolInputJsonSchema(dataset, toolInputJsonSchema(advertised));
  return dataset;
}

/** Stand-ins by plan: a plan shared by several datasets (one statement of a parameter) has one. */
const standIns = new WeakMap<ParamPlan, z.ZodType>();

/**
 * A zod schema that advertises `plan` (its JSON Schema seeded, paramJsonSchemaOnce) and is
 * required exactly when the plan is; it refuses every value and is never used to check one.
 */
function standIn(plan: ParamPlan): z.ZodType {
  let schema = standIns.get(plan);
  if (!schema) {
    schema = plan.required ? z.never() : z.never().optional();
    primeParamJson(schema, plan.json);
    standIns.set(plan, schema);
  }
  return schema;
}

function importOperation(op: DocumentOperation, known: DatasetDefinition | undefined, ctx: Context): void {
  const { report } = ctx;
  const skip = (reason: string): void => skipOperation(op, known, ctx, reason);
  // A dataset we know keeps our id (its tool name); another gets a portable one.
  const operationId = known ? known.operationId : portableOperationId(op.operationId, op.path, ctx.namespace);
  if (ctx.seen.has(operationId)) return skip(`operation id ${operationId} appears twice`);
  const toolName = ctx.nameOf(operationId);
  const owner = ctx.owners.get(toolName);
  if (owner !== undefined && owner !== operationId) return skip(`tool name ${toolName} is already taken${owner ? ` by ${owner}` : ''}`);
  if (!known && report.added.length >= MAX_IMPORTED_DATASETS) return skip(CAP_REASON);
  let params: Parsed;
  try {
    params = parseParameters(op, known, ctx.converted);
  } catch (error) {
    return skip(error instanceof Error ? error.message : 'a parameter could not be converted');
  }
  ctx.seen.add(operationId);
  ctx.owners.set(toolName, operationId);
  report.accepted.push(op.key);
  report.keys[operationId] = op.key;
  const wire = wireOf(params, known, op);
  if (known) report.datasets.push(knownDataset(known, params, wire, report));
  else {
    report.added.push(operationId);
    report.datasets.push(addedDataset(op, operationId, params, wire, ctx));
  }
}

/** An operation not taken, with the reason; a dataset we know keeps its tool, which says why it cannot be used: never our guesses sent instead. */
function skipOperation(op: DocumentOperation, known: DatasetDefinition | undefined, ctx: Context, reason: string): void {
  const { report } = ctx;
  report.skipped.push({ path: registryPath(op.key, 120) || '(unnamed path)', reason });
  if (known && !ctx.seen.has(known.operationId)) {
    ctx.seen.add(known.operationId);
    report.keys[known.operationId] = op.key;
    report.datasets.push(unreadableDataset(known, reason));
  }
}

type Wire = Pick<DatasetDefinition, 'upstreamNames' | 'pathParams' | 'wireForms' | 'responseFields'>;

/**
 * How the operation's requests go on the wire where they differ from our names, and the row
 * fields the document lists where our catalog has no response schema of its own: read now for
 * a catalog dataset (they tell whether the document changed it), when first asked for for one
 * the upstream adds (withFieldsWhenAsked).
 */
function wireOf(params: Parsed, known: DatasetDefinition | undefined, op: DocumentOperation): Wire {
  const responseFields = known && !known.response ? rowFieldsOf(op.response) : undefined;
  return {
    ...(Object.keys(params.upstreamNames).length > 0 ? { upstreamNames: params.upstreamNames } : {}),
    ...(params.pathParams.length > 0 ? { pathParams: params.pathParams } : {}),
    ...(Object.keys(params.wireForms).length > 0 ? { wireForms: params.wireForms } : {}),
    ...(responseFields ? { responseFields } : {}),
  };
}

/** A dataset the upstream adds: its text marked as the registry's, its schemas and row fields made when first asked for. */
function addedDataset(op: DocumentOperation, operationId: string, params: Parsed, wire: Wire, ctx: Context): DatasetDefinition {
  const title = registryText(op.summary ?? '', 60) || operationId;
  // Short: the tool list is read on every turn, and length is what repetition buys.
  const text = registryText(op.description ?? op.summary ?? '', 200);
  const added = withParamsWhenAsked(
    {
      operationId,
      title: `${title} ${NOT_REVIEWED}`,
      // Marked, so that the agent weighs it as the registry's word, not ours.
      description: `[Dataset from the API's registry; text not reviewed] ${text || title}`,
      path: params.path,
      ...wire,
      onDemand: op.onDemand === true,
      cacheClass: CACHE_CLASSES.find((c) => c === op.cacheClass) ?? 'daily',
    },
    params,
  );
  return withFieldsWhenAsked(added, op, ctx.deferred);
}

/** A dataset we know, as the document states it: the same object when nothing changed, else the upstream's path and parameters under our reviewed text. */
function knownDataset(known: DatasetDefinition, params: Parsed, wire: Wire, report: ImportReport): DatasetDefinition {
  // Its parameters' zod schemas are made now (what changed is told by them).
  const ticker = params.ticker?.zod() as z.ZodType<string> | undefined;
  const shape = { path: params.path, ...(ticker ? { ticker } : {}), query: zodOf(params.query) };
  const local = localParamsOf(known, shape.query);
  const unchanged =
    Object.keys(wire).length === 0 &&
    Object.keys(local).length === 0 &&
    known.path === params.path &&
    known.ticker === ticker &&
    Object.keys(known.query).length === Object.keys(shape.query).length &&
    Object.entries(shape.query).every(([name, schema]) => known.query[name] === schema);
  if (unchanged) return known;
  // Upstream wins on path and parameters; reviewed text and behaviour flags stay ours.
  report.changed.push(known.operationId);
  const merged: DatasetDefinition = {
    ...known,
    ...shape,
    ...wire,
    ...(Object.keys(local).length > 0 ? { localParams: Object.keys(local), shaping: { ...known.shaping, ...local } } : {}),
  };
  // The ticker follows the upstream: one moved to the query is no longer a path parameter.
  if (!params.ticker) delete (merged as { ticker?: unknown }).ticker;
  return withHeldExamples(known, merged);
}

/**
 * A curated tool's text keeps our words, not an example of one of its parameters that the
 * document's check for that parameter refuses ("e.g. EURUSD" where pairs are `EUR/USD`): an
 * example our own check took is held to the document's, and dropped when it fails it.
 */
function withHeldExamples(known: DatasetDefinition, merged: DatasetDefinition): DatasetDefinition {
  if (statedExamples(known.description).length === 0) return merged;
  const checks: [z.ZodType, z.ZodType | undefined][] = [
    ...(known.ticker ? [[known.ticker, merged.ticker] as [z.ZodType, z.ZodType | undefined]] : []),
    ...Object.entries(known.query).map(([name, ours]): [z.ZodType, z.ZodType | undefined] => [
      ours,
      merged.query[name] ?? merged.shaping?.[name],
    ]),
  ];
  const accepts = (value: string): boolean =>
    checks.every(([ours, theirs]) => !acceptsExample(ours, value) || (theirs !== undefined && acceptsExample(theirs, value)));
  const description = withAcceptedExamples(known.description, accepts);
  return description === known.description ? merged : { ...merged, description };
}

/**
 * A dataset whose operation came garbled keeps our definition (saying it cannot be used).
 * One the document does not list is retired only on evidence: a fresh document that lists
 * most of the catalog's routes.
 */
function retireAbsent(ctx: Context, present: ReadonlySet<string>, options: ImportOptions): void {
  const { report, catalog } = ctx;
  const complete = options.fresh !== false && present.size > catalog.length * COMPLETE_SHARE;
  const retiredBefore = new Map((options.retired ?? []).map((r) => [r.operationId, r.reason]));
  for (const dataset of catalog) {
    if (ctx.seen.has(dataset.operationId)) continue;
    const listed = present.has(routeOf(dataset.path));
    const before = listed ? undefined : retiredBefore.get(dataset.operationId);
    if (before !== undefined) report.retired.push({ operationId: dataset.operationId, reason: before });
    else if (listed || !complete) {
      if (!listed) report.keptAbsent.push(dataset.operationId);
      report.datasets.push(dataset);
    } else
      report.retired.push({
        operationId: dataset.operationId,
        reason: `the upstream's document lists ${present.size} of the catalog's ${catalog.length} paths but not ${dataset.path}`,
      });
  }
}
