/**
 * The filters the catalog chose where the spec leaves query parameters open, applied
 * after generation like an upstream would apply a WHERE clause: tickers on the short
 * screener, open-interest changes and congress trades; side and disclosure dates on
 * congress trades; a batch of tickers on the anomaly score. The payload is generated
 * without the filters and at the largest page, filtered, then cut to the asked limit, so
 * a filter never hides a row that a larger unfiltered page would have held.
 */
import type { QueryValues } from '../catalog/index.js';
import { lookupTicker } from './market.js';
import type { GeneratorContext } from './synthetic.js';

type Row = Record<string, string | number | boolean | null>;
type Payload = Row[] | Row;
type Generate = (ctx: GeneratorContext) => Payload;

/** Per dataset: the field each filter reads and the largest page to filter from. */
const FILTERED: Record<string, { tickerField?: string; maxRows: number }> = {
  'shorts.short_screener': { tickerField: 'ticker', maxRows: 1000 },
  'market.oi_change': { tickerField: 'underlying', maxRows: 2000 },
  'congress.recent_trades': { tickerField: 'ticker', maxRows: 500 },
};

const FILTER_PARAMS = ['tickers', 'side', 'from', 'to'];

function keep(row: Row, query: QueryValues, tickerField: string | undefined): boolean {
  const tickers = typeof query['tickers'] === 'string' ? query['tickers'].split(',') : undefined;
  if (tickers && tickerField && !tickers.includes(String(row[tickerField]))) return false;
  if (typeof query['side'] === 'string' && row['side'] !== query['side']) return false;
  const day = typeof row['disclosed_on'] === 'string' ? row['disclosed_on'] : undefined;
  if (day && typeof query['from'] === 'string' && day < query['from']) return false;
  if (day && typeof query['to'] === 'string' && day > query['to']) return false;
  return true;
}

export function applyQueryFilters(ctx: GeneratorContext, generate: Generate): Payload {
  const { query } = ctx;
  if (ctx.operationId === 'volatility.anomaly' && typeof query['with_tickers'] === 'string') {
    const { with_tickers: batch, ...rest } = query;
    const others = String(batch)
      .split(',')
      .filter((t) => t !== ctx.entry?.ticker)
      .map((t): Row => {
        const entry = lookupTicker(t);
        const row = entry ? generate({ ...ctx, entry, query: rest }) : { ticker: t, error: 'NOT_FOUND' };
        return Array.isArray(row) ? (row[0] ?? { ticker: t }) : row;
      });
    const own = generate({ ...ctx, query: rest });
    return [...(Array.isArray(own) ? own : [own]), ...others];
  }
  const filtered = FILTERED[ctx.operationId];
  if (!filtered || !FILTER_PARAMS.some((p) => query[p] !== undefined)) return generate(ctx);
  const unfiltered = Object.fromEntries(Object.entries(query).filter(([name]) => !FILTER_PARAMS.includes(name)));
  const payload = generate({ ...ctx, query: { ...unfiltered, limit: filtered.maxRows } });
  const rows = Array.isArray(payload) ? payload : [payload];
  const limit = typeof query['limit'] === 'number' ? query['limit'] : rows.length;
  return rows.filter((row) => keep(row, query, filtered.tickerField)).slice(0, limit);
}
