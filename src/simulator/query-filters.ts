/**
 * The filters the catalog chose where the spec leaves query parameters open, applied
 * after generation like an upstream would apply a WHERE clause: tickers on the short
 * screener, open-interest changes and congress trades; side and disclosure dates on
 * congress trades; a batch of tickers on the anomaly score. The payload is generated
 * without the filters and at the largest page, filtered, then cut to the asked limit, so
 * a filter never hides a row that a larger unfiltered page would have held. The row fields
 * each filter reads are declared by the dataset's generator, checked against its row type.
 */
import { side, tickerFilter, type DatasetDefinition } from '../catalog/index.js';
import {
  DatasetRefusal,
  type FilterFields,
  type Generated,
  type Generator,
  type GeneratorContext,
  type Row,
} from './generators/context.js';
import { congressFilterFields } from './generators/filings.js';
import type { CatalogOperationId } from './generators/index.js';
import { oiChangeFilterFields } from './generators/options.js';
import { shortScreenerFilterFields } from './generators/shorts.js';
import { referenceSymbol } from './reference.js';

interface Filtered {
  /** The row fields the filters read, as the dataset's generator declares them. */
  readonly fields: FilterFields;
  /** The largest page to filter from. */
  readonly maxRows: number;
}

/** The datasets the filters apply to, with the row fields their generators declare. */
const FILTERED: { readonly [K in CatalogOperationId]?: Filtered } = {
  'shorts.short_screener': { fields: shortScreenerFilterFields, maxRows: 1000 },
  'market.oi_change': { fields: oiChangeFilterFields, maxRows: 2000 },
  'congress.recent_trades': { fields: congressFilterFields, maxRows: 500 },
};

/** Each filter parameter and the declared field it reads. */
const FILTER_FIELD = { tickers: 'ticker', side: 'side', from: 'date', to: 'date' } as const satisfies Record<string, keyof FilterFields>;
type FilterParam = keyof typeof FILTER_FIELD;
const FILTER_PARAMS = Object.keys(FILTER_FIELD) as FilterParam[];

function filteredOf(operationId: string): Filtered | undefined {
  return (FILTERED as Partial<Record<string, Filtered>>)[operationId];
}

/**
 * Filters the catalog declares that nothing would apply: the catalog's filter schemas
 * (filter-params.ts) on a dataset outside the table, or a filter whose row field the
 * dataset's generator does not declare. Each would answer unfiltered or empty without a
 * word, so the simulator refuses to start.
 */
export function undeclaredFilters(datasets: readonly DatasetDefinition[]): string[] {
  const problems: string[] = [];
  for (const dataset of datasets) {
    const filtered = filteredOf(dataset.operationId);
    for (const [param, schema] of Object.entries(dataset.query)) {
      if (filtered) {
        if (param in FILTER_FIELD && filtered.fields[FILTER_FIELD[param as FilterParam]] === undefined)
          problems.push(`${dataset.operationId} ${param}`);
      } else if (schema === tickerFilter || schema === side) {
        // Outside the table, a parameter of another schema (correlations' tickers, a day range) is the generator's own.
        problems.push(`${dataset.operationId} ${param}`);
      }
    }
  }
  return problems;
}

/** The text a filter reads; a row without its declared field (or not text there) is a generator bug, never a non-match. */
function read(row: Row, operationId: string, fields: FilterFields, param: FilterParam): string {
  const name = fields[FILTER_FIELD[param]];
  const value = name === undefined ? undefined : row[name];
  if (typeof value !== 'string')
    throw new Error(
      `${operationId}: the ${param} filter reads "${String(name)}", which the generated row lacks as text (${Object.keys(row).join(', ')}).`,
    );
  return value;
}

function keep(row: Row, query: GeneratorContext['query'], operationId: string, fields: FilterFields): boolean {
  const tickers = typeof query['tickers'] === 'string' ? query['tickers'].split(',') : undefined;
  if (tickers && !tickers.includes(read(row, operationId, fields, 'tickers'))) return false;
  if (typeof query['side'] === 'string' && read(row, operationId, fields, 'side') !== query['side']) return false;
  if (typeof query['from'] === 'string' && read(row, operationId, fields, 'from') < query['from']) return false;
  if (typeof query['to'] === 'string' && read(row, operationId, fields, 'to') > query['to']) return false;
  return true;
}

function rowsOf(generated: Generated): Row[] {
  return Array.isArray(generated.data) ? generated.data : [generated.data];
}

export function applyQueryFilters(operationId: string, ctx: GeneratorContext, generate: Generator): Generated {
  const { query } = ctx;
  if (operationId === 'volatility.anomaly' && typeof query['with_tickers'] === 'string') {
    const { with_tickers: batch, ...rest } = query;
    const own = generate({ ...ctx, query: rest });
    let asOf = own.asOf;
    const others = String(batch)
      .split(',')
      .filter((t) => t !== ctx.symbol?.ticker)
      .map((t): Row => {
        const symbol = referenceSymbol(t);
        if (!symbol) return { ticker: t, error: 'NOT_FOUND' };
        try {
          const generated = generate({ ...ctx, symbol, query: rest });
          asOf = Math.max(asOf, generated.asOf);
          return rowsOf(generated)[0] ?? { ticker: t };
        } catch (error) {
          if (error instanceof DatasetRefusal) return { ticker: t, error: error.code };
          throw error;
        }
      });
    return { data: [...rowsOf(own), ...others], asOf };
  }
  const filtered = filteredOf(operationId);
  if (!filtered || !FILTER_PARAMS.some((p) => query[p] !== undefined)) return generate(ctx);
  const unfiltered = Object.fromEntries(Object.entries(query).filter(([name]) => !(name in FILTER_FIELD)));
  const generated = generate({ ...ctx, query: { ...unfiltered, limit: filtered.maxRows } });
  const rows = rowsOf(generated);
  const limit = typeof query['limit'] === 'number' ? query['limit'] : rows.length;
  return { ...generated, data: rows.filter((row) => keep(row, query, operationId, filtered.fields)).slice(0, limit) };
}
