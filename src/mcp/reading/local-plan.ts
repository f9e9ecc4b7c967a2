/**
 * The reading stage's part of a call's plan, made as the call is screened (arguments/
 * dataset-call.ts), so that its refusals come before any request: what is applied here over
 * the upstream's pages (a page size, tickers, a session or range the document does not
 * offer) and a row filter of the tool's own. The one way the screening stage enters reading/.
 */
import type { DatasetDefinition, QueryValues } from '../../catalog/index.js';
import { localValues } from './local-filters.js';
import { readsLocally } from './local-pages.js';
import { rowFilterOf, type RowFilter } from './row-filters.js';

/** What the read does here over the upstream's pages, planned as the call is screened (its refusals before any request). */
export interface LocalPlan {
  /** Ours the upstream does not offer, applied here over its pages; undefined when the upstream's page is the answer. */
  readonly local: QueryValues | undefined;
  /** The tool's own row filter (dark-pool size and time window, lit-print tickers, OI direction). */
  readonly rowFilter: RowFilter | undefined;
}

/** The reading stage's part of a call's plan, from its arguments as screened (arguments/dataset-call.ts). */
export function planLocalRead(dataset: DatasetDefinition, args: Readonly<Record<string, unknown>>): LocalPlan {
  const rowFilter = rowFilterOf(dataset, args);
  // Ours the upstream does not offer (a page size, tickers, a session...): applied here over its pages.
  // So is a row filter of the tool's own, in every dialect: `limit` then counts the rows that
  // match, as it does for a filter the upstream applies, whoever does the filtering.
  const local = readsLocally(dataset) ? localValues(dataset, args) : rowFilter ? {} : undefined;
  return { local, rowFilter };
}
