/**
 * The upstream's /v1/openapi.json → datasets. The upstream is authoritative for
 * parameters; datasets it registers that the catalog does not know become datasets
 * here, with sanitized, capped descriptions (upstream text is data, not instructions).
 */
import * as z from 'zod';
import { sanitizeText } from '../sanitize.js';
import { DATASETS } from './datasets.js';
import { paramJsonSchema } from './openapi.js';
import { isRealCalendarDate, refusedAs } from './params.js';
import type { CacheClass, DatasetDefinition } from './types.js';

const OPERATION_ID = /^[a-z][a-z0-9_]{0,30}(\.[a-z0-9_]{1,40}){1,2}$/;
const PATH = /^\/v1(\/([a-z0-9][a-z0-9_-]{0,40}|\{ticker\})){1,6}$/;
const PARAM_NAME = /^[a-z][a-z0-9_]{0,40}$/;
const CACHE_CLASSES: readonly CacheClass[] = ['intraday', 'daily', 'filings', 'static'];
const MAX_PARAMS = 20;

interface RawParameter {
  name?: unknown;
  in?: unknown;
  required?: unknown;
  description?: unknown;
  schema?: unknown;
}

interface RawOperation {
  operationId?: unknown;
  summary?: unknown;
  description?: unknown;
  parameters?: unknown;
  'x-on-demand'?: unknown;
  'x-cache-class'?: unknown;
}

export interface ImportReport {
  datasets: DatasetDefinition[];
  /** Operation ids the catalog did not know. */
  added: string[];
  /** Catalog datasets whose parameters the upstream changed. */
  changed: string[];
  skipped: { path: string; reason: string }[];
}

/** Keeps only the JSON Schema keywords a parameter needs, with capped text. */
function cleanSchema(raw: unknown): Record<string, unknown> | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const source = raw as Record<string, unknown>;
  const type = source['type'];
  if (!['string', 'integer', 'number', 'boolean'].includes(String(type))) return undefined;
  const clean: Record<string, unknown> = { type };
  if (typeof source['pattern'] === 'string' && source['pattern'].length <= 300) clean['pattern'] = source['pattern'];
  if (typeof source['format'] === 'string') clean['format'] = sanitizeText(source['format'], 30);
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength'] as const)
    if (typeof source[key] === 'number') clean[key] = source[key];
  const values: unknown = source['enum'];
  if (Array.isArray(values)) {
    clean['enum'] = values
      .filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
      .slice(0, 50)
      .map((v) => (typeof v === 'string' ? sanitizeText(v, 80) : v));
  }
  if (source['default'] !== undefined && ['string', 'number', 'boolean'].includes(typeof source['default']))
    clean['default'] = source['default'];
  return clean;
}

function toZod(name: string, schema: Record<string, unknown>, description: string | undefined, required: boolean): z.ZodType {
  // zod turns format "date" into its own long ISO regex; keep the upstream's pattern and
  // format as they are, and check real calendar dates the way the catalog does.
  const { format, ...rest } = schema;
  const values = rest['enum'];
  // A one-value enum would come back from zod as `const`; build string enums directly.
  let converted: z.ZodType =
    Array.isArray(values) && values.length > 0 && values.every((v): v is string => typeof v === 'string')
      ? z.enum(values as [string, ...string[]])
      : z.fromJSONSchema(rest);
  if (format === 'date')
    converted = converted.refine((v) => typeof v === 'string' && isRealCalendarDate(v), { message: 'not a real calendar date' });
  if (typeof format === 'string') converted = converted.meta({ format });
  if (description) converted = converted.describe(description);
  if (name === 'ticker' || name === 'tickers') converted = refusedAs(converted, 'TICKER_INVALID');
  if (name === 'contract') converted = refusedAs(converted, 'CONTRACT_SYMBOL_INVALID');
  return required ? converted : converted.optional();
}

/** JSON with keys sorted, so that key order never counts as a difference. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

function sameParams(ours: DatasetDefinition, theirs: DatasetDefinition): boolean {
  const shape = (d: DatasetDefinition): string =>
    canonical({
      ticker: d.ticker ? paramJsonSchema(d.ticker).schema : null,
      query: Object.fromEntries(
        Object.entries(d.query).map(([k, v]) => [k, { ...paramJsonSchema(v).schema, required: !v.safeParse(undefined).success }]),
      ),
    });
  return shape(ours) === shape(theirs);
}

export function datasetsFromOpenApi(document: unknown, catalog: readonly DatasetDefinition[] = DATASETS): ImportReport {
  const report: ImportReport = { datasets: [], added: [], changed: [], skipped: [] };
  const byId = new Map(catalog.map((d) => [d.operationId, d]));
  const seen = new Set<string>();
  const paths = typeof document === 'object' && document !== null ? (document as { paths?: unknown }).paths : undefined;
  if (typeof paths !== 'object' || paths === null) return { ...report, datasets: [...catalog] };

  for (const [path, item] of Object.entries(paths as Record<string, unknown>)) {
    const op = (item as { get?: RawOperation } | null)?.get;
    if (!op || typeof op.operationId !== 'string' || op.operationId.startsWith('meta.')) continue;
    if (path === '/v1/discover' || path === '/v1/health' || path === '/v1/openapi.json') continue;
    const skip = (reason: string): void => void report.skipped.push({ path: sanitizeText(path, 120), reason });
    if (!OPERATION_ID.test(op.operationId)) {
      skip('operation id is not in the dotted form');
      continue;
    }
    if (!PATH.test(path) || (path.match(/\{ticker\}/g) ?? []).length > 1) {
      skip('path has parameters other than one {ticker}');
      continue;
    }
    const params = Array.isArray(op.parameters) ? (op.parameters as RawParameter[]).slice(0, MAX_PARAMS) : [];
    let ticker: z.ZodType<string> | undefined;
    const query: Record<string, z.ZodType> = {};
    let usable = true;
    for (const param of params) {
      const name = typeof param.name === 'string' ? param.name : '';
      const schema = cleanSchema(param.schema);
      if (!PARAM_NAME.test(name) || !schema || (param.in !== 'path' && param.in !== 'query')) {
        usable = false;
        break;
      }
      const description = typeof param.description === 'string' ? sanitizeText(param.description, 200) : undefined;
      if (param.in === 'path') {
        if (name !== 'ticker') usable = false;
        else ticker = toZod('ticker', schema, description, true) as z.ZodType<string>;
      } else {
        query[name] = toZod(name, schema, description, param.required === true);
      }
    }
    if (!usable || path.includes('{ticker}') !== (ticker !== undefined)) {
      skip('a parameter could not be converted');
      continue;
    }
    seen.add(op.operationId);
    const known = byId.get(op.operationId);
    const summary = typeof op.summary === 'string' ? sanitizeText(op.summary, 80) : op.operationId;
    const imported: DatasetDefinition = {
      operationId: op.operationId,
      path: path as `/v1/${string}`,
      title: summary,
      description: typeof op.description === 'string' ? sanitizeText(op.description, 400) : summary,
      ...(ticker ? { ticker } : {}),
      query,
      onDemand: op['x-on-demand'] === true || (typeof op.description === 'string' && /on[- ]demand/i.test(op.description)),
      cacheClass: CACHE_CLASSES.includes(op['x-cache-class'] as CacheClass) ? (op['x-cache-class'] as CacheClass) : 'daily',
    };
    if (!known) {
      report.added.push(op.operationId);
      report.datasets.push(imported);
    } else if (known.path !== path || !sameParams(known, imported)) {
      // Upstream wins on parameters; reviewed text and behaviour flags stay ours.
      report.changed.push(op.operationId);
      report.datasets.push({
        ...known,
        path: imported.path,
        query: imported.query,
        ...(imported.ticker ? { ticker: imported.ticker } : {}),
      });
    } else {
      report.datasets.push(known);
    }
  }
  for (const dataset of catalog) if (!seen.has(dataset.operationId)) report.datasets.push(dataset);
  return report;
}
