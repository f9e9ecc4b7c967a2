/**
 * The read stage of a dataset call: what the screened call asks, read from the upstream
 * through the client (cache, account gate, retries). Two ways, chosen by the call:
 *
 * - **its pages, here** (local-pages.ts) when something is applied here over the upstream's
 *   pages (a page size, tickers, a session or range the document does not offer, a row
 *   filter of the tool's own): pages are read with the upstream's own next page until the
 *   rows asked are gathered;
 * - **the page asked** otherwise: the first page, or the one a cursor names; a time window
 *   past it is read on (row-filters.ts, readWindow).
 *
 * Before either, a call known empty by the calendar (a weekend, a holiday, a session not
 * opened yet, prints asked after a half day's close, an expiry on a day with no session) is
 * answered without a request.
 */
import type { CallContext } from '../../api/call-context.js';
import type { ApiResult, MarketDataClient, ProgressEvent } from '../../api/client.js';
import { withValues, type DatasetQuery } from '../../api/dataset-query.js';
import type { NextPage } from '../../api/next-page.js';
import type { DatasetDefinition, QueryValues } from '../../catalog/index.js';
import type { DatasetCall } from '../arguments/dataset-call.js';
import { withScopeAlternatives } from '../arguments/scope.js';
import { beforeOpenNotice, followsSessions, knownEmptyDates, knownEmptyWindow, type KnownEmpty } from './known-empty.js';
import { readLocally, type LocalRead } from './local-pages.js';
import { readWindow } from './row-filters.js';
import { withUnmatchedTickers } from './unmatched-tickers.js';

export interface ReadDeps {
  client: MarketDataClient;
  call: CallContext;
  onProgress: ((event: ProgressEvent) => void) | undefined;
  now?: number;
}

export type DatasetRead =
  | { kind: 'known-empty'; empty: KnownEmpty }
  | {
      kind: 'read';
      /** The rows or payload read, as one answer (its meta the first page's, with the quota after the last). */
      result: ApiResult;
      /** Upstream requests spent (a cached page costs none). */
      units: number;
      /** Whether the answer is one upstream page as the API sent it, not gathered here over several. */
      onePage: boolean;
      /** The pages read here, when they were: where the next answer starts, how far back they reached. */
      pages: LocalRead | undefined;
      /** Drops what was read from the cache: a bug of ours shaping it must not be served again. */
      forget: () => void;
      /** Milliseconds the first page read stays in this process's cache: the same call again is free for that long. */
      cachedForMs: () => number;
    };

/** A call that takes no cursor: read from the first page, no cursor handed back. */
const FIRST_PAGE = { base: undefined, upstreamPage: undefined, skip: 0 };

export async function readDataset(request: DatasetCall, deps: ReadDeps): Promise<DatasetRead> {
  const { query, local, rowFilter, paging } = request;
  const { dataset } = query;
  // Known empty by the calendar: answered here, for free, saying why (a time window after a
  // half day's early close among them).
  const now = deps.now ?? Date.now();
  const empty =
    knownEmptyDates(request.asked, now, followsSessions(dataset)) ??
    (rowFilter ? knownEmptyWindow(request.asked, rowFilter, now) : undefined);
  if (empty) return { kind: 'known-empty', empty };
  const options = { call: deps.call, onProgress: deps.onProgress };
  // A refusal of scope names the tools the key may use instead (discover, free).
  const withAlternatives = async (error: unknown): Promise<never> => {
    throw await withScopeAlternatives(deps.client, dataset.operationId, error, deps.call);
  };
  if (local) {
    const pages = await readLocally(withoutCursor(query), local, paging ?? FIRST_PAGE, rowFilter, {
      client: deps.client,
      ...options,
    }).catch(withAlternatives);
    const result = withUnmatchedTickers(request, noticed(dataset, query.values, pages.result, deps.now));
    return { kind: 'read', result, units: pages.units, onePage: false, pages, forget: pages.forget, cachedForMs: pages.cachedForMs };
  }
  // The page the cursor names (a URL the upstream issued is asked as it is); a time window
  // past it is read on with the upstream's next page, in whatever form the answers give it.
  const fetchAt = (at: NextPage | undefined): Promise<ApiResult> => deps.client.datasetAt(query, at, options).catch(withAlternatives);
  const first = deps.client.pageOf(query, paging?.upstreamPage);
  const firstResult = await deps.client.readPage(first, options).catch(withAlternatives);
  const read = await readWindow(firstResult, rowFilter, fetchAt);
  return {
    kind: 'read',
    result: withUnmatchedTickers(request, noticed(dataset, query.values, read.result, deps.now)),
    units: read.units,
    onePage: read.pages === 1,
    pages: undefined,
    forget: () => deps.client.forget(first),
    cachedForMs: () => deps.client.cachedForMs(first),
  };
}

/** The query less the upstream's cursor: the local reader sets it page by page. */
function withoutCursor(query: DatasetQuery): DatasetQuery {
  const name = query.roles.cursor;
  if (name === undefined) return query;
  return withValues(query, Object.fromEntries(Object.entries(query.values).filter(([key]) => key !== name)));
}

/** A session asked before it opened: said beside the upstream's own notice. */
function noticed(dataset: DatasetDefinition, query: QueryValues, result: ApiResult, now: number | undefined): ApiResult {
  const beforeOpen = beforeOpenNotice(dataset, query, now ?? Date.now());
  if (!beforeOpen) return result;
  return { ...result, meta: { ...result.meta, notice: [beforeOpen, result.meta.notice].filter(Boolean).join(' ') } };
}
