/** What a payload generator receives and returns, and how it refuses a request it cannot serve. */
import type { QueryValues } from '../../catalog/index.js';
import type { Session } from '../../catalog/market-calendar.js';
import type { ReferenceSymbol } from '../reference.js';

export interface GeneratorContext {
  readonly seed: number;
  /** The simulator's clock (injectable), epoch ms. */
  readonly now: number;
  /** The session "now" resolves to: the live one, or the latest that has opened. */
  readonly session: Session;
  /** The path's symbol, for ticker endpoints; looked up in the reference market. */
  readonly symbol: ReferenceSymbol | undefined;
  readonly query: QueryValues;
}

export type Cell = string | number | boolean | null | readonly Cell[] | { readonly [key: string]: Cell };
export type Row = Record<string, Cell>;
export type Payload = Row[] | Row;

export interface Generated {
  readonly data: Payload;
  /** The instant of the newest fact in `data`, for `_meta.data_freshness_seconds`. */
  readonly asOf: number;
  readonly nextCursor?: string | null;
}

export type Generator = (ctx: GeneratorContext) => Generated;

/**
 * The fields of a generator's rows that the catalog's upstream filters read
 * (query-filters.ts applies them after generation). Declared beside the generator with
 * `satisfies FilterFields<ItsRow>`, so renaming a row field fails the type check instead
 * of silently emptying every filtered answer.
 */
export interface FilterFields<R = Row> {
  /** What `tickers` matches: the row's ticker. */
  readonly ticker?: keyof R & string;
  /** What `side` matches: the row's transaction type, in the catalog's vocabulary. */
  readonly side?: keyof R & string;
  /** What `from` and `to` bound: the row's ET date, YYYY-MM-DD. */
  readonly date?: keyof R & string;
}

/** A request the data cannot serve (unknown currency, unknown symbol in a list...). */
export class DatasetRefusal extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'VALIDATION_ERROR',
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

export function requireSymbol(ctx: GeneratorContext): ReferenceSymbol {
  if (!ctx.symbol) throw new DatasetRefusal('NOT_FOUND', 'This endpoint needs a covered ticker.', 'Check the symbol.');
  return ctx.symbol;
}

export function limitOf(ctx: GeneratorContext, fallback: number): number {
  const limit = ctx.query['limit'];
  return typeof limit === 'number' ? limit : fallback;
}

export function stringParam(ctx: GeneratorContext, name: string): string | undefined {
  const value = ctx.query[name];
  return typeof value === 'string' ? value : undefined;
}
