/**
 * Which datasets answer lists, and how a dialect pages each one. The dealer history pages as
 * the spec says (its own cursor, `_meta.next_cursor`); three datasets answer one object; every
 * other dataset, a runtime one included, answers a list.
 */
import { paramJsonSchema, type DatasetDefinition } from '../catalog/index.js';
import { perListPaging } from './dialect-compose.js';
import type { Dialect, Paging, RowWrapper, TokenAt } from './dialect.js';

export const DEALER_PATH = '/v1/derived/dealer-gex/{ticker}/history';

/** Datasets whose answer is one object (the anomaly score is a list only with `with_tickers`). */
const ONE_OBJECT: ReadonlySet<string> = new Set(['flow.ticker_overview', 'volatility.anomaly', 'macro.forex_rate']);

/** The dark-pool prints page behind a cursor of their own (a time in the session), which a cursor protocol hands out as is. */
export function hasNativeCursor(dataset: DatasetDefinition): boolean {
  return dataset.operationId === 'darkpool.by_ticker' && Object.hasOwn(dataset.query, 'cursor');
}

export function answersList(dataset: DatasetDefinition): boolean {
  return dataset.path !== DEALER_PATH && !ONE_OBJECT.has(dataset.operationId);
}

/** Where a wrapper puts a token when nothing else says where: beside its metadata as the spec does, or at the top. */
export function tokenPlace(wrapper: RowWrapper): { tokenAt: TokenAt; last: 'null' | 'omit' } | undefined {
  switch (wrapper) {
    case 'data-meta':
    case 'data-rows':
    case 'bare-when-whole':
      return { tokenAt: 'meta.next_cursor', last: 'null' };
    case 'results-meta':
      return { tokenAt: 'meta.next', last: 'omit' };
    case 'items':
      return { tokenAt: 'next', last: 'null' };
    case 'records':
      return { tokenAt: 'next_cursor', last: 'null' };
    case 'polygon':
    case 'bare':
    case 'keyed-by-ticker':
      return undefined;
  }
}

/** The paging of one list in a dialect; undefined for the dealer history and one-object datasets. */
export function listPaging(dialect: Dialect, dataset: DatasetDefinition): Paging | undefined {
  if (!answersList(dataset)) return undefined;
  const plan = dialect.traits.paging;
  const paging =
    plan.kind === 'per-list'
      ? perListPaging(plan.seed, dataset.operationId, dialect.traits.wrapper)
      : !Object.hasOwn(dataset.query, 'limit') && plan.unpaged === 'whole'
        ? ({ kind: 'none', cut: null, flag: true } as const)
        : plan.paging;
  // Where pages are the first rows, the dark-pool prints still read further back with their own cursor, as in the spec's reading.
  const place = tokenPlace(dialect.traits.wrapper);
  if (paging.kind === 'first-rows' && hasNativeCursor(dataset) && place)
    return { kind: 'cursor', cursor: 'cursor', size: paging.size, pageSize: 50, ...place };
  return paging;
}

/** The most rows the upstream serves of a list: the catalog's largest page, every row where it has none. */
export function largestPage(dataset: DatasetDefinition): number | undefined {
  const schema = dataset.query['limit'];
  const max = schema ? paramJsonSchema(schema).schema['maximum'] : undefined;
  return typeof max === 'number' ? max : undefined;
}
