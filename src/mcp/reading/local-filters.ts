/**
 * A tool's own filters over the upstream's rows (`dataset.localParams`: a ticker list, a
 * side, a session or a range), checked as every parameter is; and the watch that tells a
 * newest-first list has passed the dates asked, so that no page past them is read.
 */
import { validateAgentParam, type DatasetDefinition, type QueryValues } from '../../catalog/index.js';
import { refusalError } from '../answers/tool-errors.js';
import { printTimeOf, type RowFilter } from './row-filters.js';
import { tickerOf } from './field-roles.js';

type Row = Record<string, unknown>;

const ET_DATE = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' });
/** A row's date, by the fields public data APIs commonly use, first found wins. */
const DATE_FIELDS = [
  'session_date',
  'session_date_et',
  'date',
  'trade_date',
  'disclosed_on',
  'traded_on',
  'as_of',
  'executed_at',
  'timestamp',
];
const SIDE_FIELDS = ['side', 'transaction_type'];

function stringField(row: Row, names: readonly string[]): string | undefined {
  for (const name of names) if (typeof row[name] === 'string') return row[name];
  return undefined;
}

/** YYYY-MM-DD (ET) of a row: a date as is, a date-time in New York's calendar. */
function etDateOf(row: Row): string | undefined {
  const value = stringField(row, DATE_FIELDS);
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ET_DATE.format(new Date(ms));
}

/** The local parameters of a call, checked as every tool parameter is. */
export function localValues(dataset: DatasetDefinition, args: Readonly<Record<string, unknown>>): QueryValues {
  const values: Record<string, string | number> = {};
  for (const name of dataset.localParams ?? []) {
    const schema = dataset.shaping?.[name];
    if (!schema) continue;
    const checked = validateAgentParam(dataset, name, schema, args[name]);
    if (!checked.ok) throw refusalError(checked.refusal);
    if (typeof checked.value === 'string' || typeof checked.value === 'number') values[name] = checked.value;
  }
  const from = values['from'];
  const to = values['to'];
  if (typeof from === 'string' && typeof to === 'string' && from > to)
    throw refusalError({
      code: 'VALIDATION_ERROR',
      param: 'from',
      message: `"from" (${from}) is after "to" (${to}).`,
      hint: 'Swap the dates or widen the range.',
    });
  return values;
}

/** The row test of the local filters (the page size is not a filter); undefined when none is set. */
export function localFilter(values: QueryValues): RowFilter | undefined {
  const checks: ((row: Row) => boolean)[] = [];
  const words: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (name === 'limit' || typeof value !== 'string') continue;
    words.push(`${name}=${value}`);
    if (name === 'tickers') {
      const wanted = new Set(value.split(','));
      checks.push((row) => wanted.has(tickerOf(row) ?? ''));
    } else if (name === 'side') checks.push((row) => stringField(row, SIDE_FIELDS) === value);
    else if (name === 'session_date') checks.push((row) => etDateOf(row) === value);
    else if (name === 'from') checks.push((row) => (etDateOf(row) ?? '') >= value);
    else if (name === 'to') checks.push((row) => (etDateOf(row) ?? '9999') <= value);
  }
  if (checks.length === 0) return undefined;
  return { keep: (row) => checks.every((check) => check(row)), words: words.join(', ') };
}

/** The filters in words, each named once: a tool's own filter may repeat a local one. */
export function filterWords(filters: readonly RowFilter[]): string {
  const words = filters.flatMap((f) => f.words.split(', '));
  return [...new Set(words)].join(', ');
}

/**
 * Watches the rows of a newest-first list go by: once one is older than the session or
 * range asked (or printed before a time window's start), none after it can match and no
 * further page is read. A list not newest first is read on, its order unknown.
 */
export class BackStop {
  /** The oldest date among the rows read (only looked for when a session or range is asked). */
  oldestDate: string | undefined;
  private newestFirst = true;
  private latest: string | undefined;
  private printsNewestFirst = true;
  private latestPrint: number | undefined;

  constructor(
    private readonly earliest: string | undefined,
    private readonly beforeWindow: ((row: Row) => boolean) | undefined,
  ) {}

  /** True when `row` shows that the rest of the list lies before what was asked. */
  passes(row: unknown): boolean {
    if (typeof row !== 'object' || row === null) return false;
    const record = row as Row;
    if (this.beforeWindow) {
      const printed = printTimeOf(record);
      this.printsNewestFirst &&= printed === undefined || this.latestPrint === undefined || printed <= this.latestPrint;
      this.latestPrint = printed ?? this.latestPrint;
      if (this.printsNewestFirst && this.beforeWindow(record)) return true;
    }
    const date = this.earliest ? etDateOf(record) : undefined;
    if (date === undefined) return false;
    if (this.oldestDate === undefined || date < this.oldestDate) this.oldestDate = date;
    this.newestFirst &&= this.latest === undefined || date <= this.latest;
    this.latest = date;
    return this.newestFirst && this.earliest !== undefined && date < this.earliest;
  }
}
