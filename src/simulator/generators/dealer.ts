/** The dealer GEX history as a generator: cursor in, one page of computed snapshots out. */
import { dealerHistoryPage, decodeCursor } from '../dealer-gex.js';
import { DatasetRefusal, limitOf, requireSymbol, stringParam, type Generator } from './context.js';

export const dealerGexHistory: Generator = (ctx) => {
  const symbol = requireSymbol(ctx);
  const cursor = stringParam(ctx, 'cursor');
  const before = cursor === undefined ? undefined : decodeCursor(cursor, symbol.ticker);
  if (cursor !== undefined && before === undefined)
    throw new DatasetRefusal(
      'VALIDATION_ERROR',
      'The cursor is invalid or belongs to another query.',
      'Use meta.next_cursor from the previous page of the same ticker, or drop cursor.',
    );
  const page = dealerHistoryPage(ctx.seed, ctx.now, symbol, before, limitOf(ctx, 6));
  return { data: page.data, asOf: page.newestAt, nextCursor: page.nextCursor };
};
