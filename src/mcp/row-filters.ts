/**
 * MCP-side row filters (src/catalog/row-filters.ts): dark-pool prints by size, notional
 * and time, lit prints by ticker, open-interest changes by direction. Applied over the
 * rows the upstream returned, so nothing unknown to the upstream's document is sent; when
 * the call sets no `limit`, the upstream is asked for its largest page so the filter has
 * rows to choose from. The notice says how many rows matched.
 */
import type { ApiResult } from '../api/client.js';
import { paramJsonSchema, validateAgentParam, type DatasetDefinition, type QueryValues } from '../catalog/index.js';
import { refusalError } from './tool-errors.js';

type Row = Record<string, unknown>;

const FILTER_NAMES = ['min_size', 'min_notional_usd', 'from_time', 'to_time', 'tickers', 'direction'] as const;

export interface RowFilter {
  keep: (row: Row) => boolean;
  /** The filters in words, for the notice. */
  words: string;
}

const ET_CLOCK = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** The first of `names` the row has as a number. */
function numberField(row: Row, names: readonly string[]): number | undefined {
  for (const name of names) if (typeof row[name] === 'number') return row[name];
  return undefined;
}

function stringField(row: Row, names: readonly string[]): string | undefined {
  for (const name of names) if (typeof row[name] === 'string') return row[name];
  return undefined;
}

/** HH:MM in ET of a row's print time. */
function etClockOf(row: Row): string | undefined {
  const at = stringField(row, ['executed_at', 'time', 'timestamp']);
  const ms = at ? Date.parse(at) : NaN;
  return Number.isNaN(ms) ? undefined : ET_CLOCK.format(new Date(ms));
}

/** The row filters of a call, checked; undefined when it sets none. Only MCP-side names count (not an upstream's own `tickers`). */
export function rowFilterOf(dataset: DatasetDefinition, args: Readonly<Record<string, unknown>>): RowFilter | undefined {
  const checks: ((row: Row) => boolean)[] = [];
  const words: string[] = [];
  for (const name of FILTER_NAMES) {
    const schema = dataset.shaping?.[name];
    const raw = args[name];
    if (!schema || Object.hasOwn(dataset.query, name) || raw === undefined || raw === null) continue;
    const checked = validateAgentParam(dataset, name, schema, raw);
    if (!checked.ok) throw refusalError(checked.refusal);
    const value = checked.value;
    words.push(`${name}=${String(value)}`);
    if (name === 'min_size' && typeof value === 'number')
      checks.push((row) => (numberField(row, ['size', 'shares', 'quantity']) ?? 0) >= value);
    if (name === 'min_notional_usd' && typeof value === 'number')
      checks.push((row) => (numberField(row, ['notional_usd', 'notional', 'value_usd']) ?? 0) >= value);
    if (name === 'from_time' && typeof value === 'string') checks.push((row) => (etClockOf(row) ?? '') >= value);
    if (name === 'to_time' && typeof value === 'string') checks.push((row) => (etClockOf(row) ?? '99:99') <= value);
    if (name === 'tickers' && typeof value === 'string') {
      const wanted = new Set(value.split(','));
      checks.push((row) => wanted.has(stringField(row, ['ticker', 'symbol', 'underlying']) ?? ''));
    }
    if (name === 'direction' && typeof value === 'string') {
      const sign = value === 'increase' ? 1 : -1;
      checks.push((row) => sign * (numberField(row, ['oi_change', 'change', 'open_interest_change']) ?? 0) > 0);
    }
  }
  if (checks.length === 0) return undefined;
  return { keep: (row) => checks.every((check) => check(row)), words: words.join(', ') };
}

/**
 * Rows asked for at most when a filter picks among them: the largest page of some datasets
 * (5,000 lit prints) is over the upstream's response-size ceiling and is refused whole.
 */
const FILTER_PAGE_ROWS = 1000;

/** The query sent: the upstream's largest page when the call set no limit, so the filter has rows to choose from. */
export function filteredQuery(dataset: DatasetDefinition, query: QueryValues, given: Readonly<Record<string, unknown>>): QueryValues {
  const schema = dataset.query['limit'];
  if (!schema || given['limit'] !== undefined) return query;
  const max = paramJsonSchema(schema).schema['maximum'];
  return typeof max === 'number' ? { ...query, limit: Math.min(max, FILTER_PAGE_ROWS) } : query;
}

/** The rows that pass, and a notice saying how many of how many. */
export function applyRowFilter(result: ApiResult, filter: RowFilter): ApiResult {
  if (!Array.isArray(result.data)) return result;
  const rows = result.data as unknown[];
  const kept = rows.filter((row) => typeof row === 'object' && row !== null && filter.keep(row as Row));
  const notice = `${kept.length} of ${rows.length} rows read matched ${filter.words} (filtered by this server).`;
  return { ...result, data: kept, meta: { ...result.meta, notice: [notice, result.meta.notice].filter(Boolean).join(' ') } };
}
