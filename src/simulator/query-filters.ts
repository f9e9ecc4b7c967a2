/**
 * The filters the catalog chose where the spec leaves query parameters open, applied
 * after generation like an upstream would apply a WHERE clause: tickers on the short
 * screener, open-interest changes and congress trades; side and disclosure dates on
 * congress trades; a batch of tickers on the anomaly score. The payload is generated
 * without the filters and at the largest page, filtered, then cut to the asked limit, so
 * a filter never hides a row that a larger unfiltered page would have held.
 */
import { DatasetRefusal, type Generated, type Generator, type GeneratorContext, type Row } from './generators/context.js';
import { referenceSymbol } from './reference.js';

/** Per dataset: the field each filter reads and the largest page to filter from. */
const FILTERED: Record<string, { tickerField?: string; maxRows: number }> = {
  'shorts.short_screener': { tickerField: 'ticker', maxRows: 1000 },
  'market.oi_change': { tickerField: 'underlying', maxRows: 2000 },
  'congress.recent_trades': { tickerField: 'ticker', maxRows: 500 },
};

const FILTER_PARAMS = ['tickers', 'side', 'from', 'to'];

function keep(row: Row, query: GeneratorContext['query'], tickerField: string | undefined): boolean {
  const tickers = typeof query['tickers'] === 'string' ? query['tickers'].split(',') : undefined;
  const ticker = tickerField ? row[tickerField] : undefined;
  if (tickers && tickerField && !(typeof ticker === 'string' && tickers.includes(ticker))) return false;
  if (typeof query['side'] === 'string' && row['side'] !== query['side']) return false;
  const day = typeof row['disclosed_on'] === 'string' ? row['disclosed_on'] : undefined;
  if (day && typeof query['from'] === 'string' && day < query['from']) return false;
  if (day && typeof query['to'] === 'string' && day > query['to']) return false;
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
  const filtered = FILTERED[operationId];
  if (!filtered || !FILTER_PARAMS.some((p) => query[p] !== undefined)) return generate(ctx);
  const unfiltered = Object.fromEntries(Object.entries(query).filter(([name]) => !FILTER_PARAMS.includes(name)));
  const generated = generate({ ...ctx, query: { ...unfiltered, limit: filtered.maxRows } });
  const rows = rowsOf(generated);
  const limit = typeof query['limit'] === 'number' ? query['limit'] : rows.length;
  return { ...generated, data: rows.filter((row) => keep(row, query, filtered.tickerField)).slice(0, limit) };
}
