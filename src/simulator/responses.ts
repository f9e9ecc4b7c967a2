/**
 * What the simulator answers once a request has passed authentication, the limits and
 * validation: a dataset's payload (or RESPONSE_TOO_LARGE), and the free meta endpoints.
 */
import { buildOpenApiDocument, scopeOf, toolsetOf, type ApiErrorCode, type DatasetDefinition, type QueryValues } from '../catalog/index.js';
import type { SimAccount, SimKey } from './accounts.js';
import { dealerHistoryPage, decodeCursor } from './dealer-gex.js';
import type { AccountLimits } from './limits.js';
import { UNIVERSE, type UniverseEntry } from './market.js';
import { applyQueryFilters } from './query-filters.js';
import { generatePayload, summarize } from './synthetic.js';

export interface Reply {
  status: number;
  body: unknown;
  code?: ApiErrorCode;
  retryAfterSeconds?: number;
  charged?: boolean;
}

/** The service state the meta endpoints describe. */
export interface ServiceView {
  datasets: readonly DatasetDefinition[];
  disabled: ReadonlySet<string>;
  adminUserIds: ReadonlySet<string>;
  perWindow: number;
  inFlight: number;
}

export function datasetReply(
  settings: { seed: number; ceilingBytes: number },
  dataset: DatasetDefinition,
  entry: UniverseEntry | undefined,
  query: QueryValues,
  requestId: string,
  limits: AccountLimits,
  now: number,
  fail: (code: ApiErrorCode, extra?: { message?: string; hint?: string }) => Reply,
): Reply {
  let data: unknown;
  let nextCursor: string | null = null;
  let freshness = 0;
  if (dataset.operationId === 'derived.dealer_gex_history' && entry) {
    const cursor = query['cursor'];
    const offset = typeof cursor === 'string' ? decodeCursor(cursor, entry.ticker) : 0;
    if (offset === undefined)
      return fail('VALIDATION_ERROR', {
        message: 'The cursor is invalid or belongs to another query.',
        hint: 'Use meta.next_cursor from the previous page of the same ticker, or drop cursor.',
      });
    const page = dealerHistoryPage(settings.seed, now, entry, offset, Number(query['limit'] ?? 6));
    ({ data, nextCursor } = page);
    freshness = page.freshnessSeconds;
  } else {
    const payload = applyQueryFilters({ seed: settings.seed, now, operationId: dataset.operationId, entry, query }, generatePayload);
    data = query['format'] === 'summary' ? summarize(payload) : payload;
    freshness = dataset.cacheClass === 'intraday' ? 30 : 3600;
  }
  const quotaAfter = limits.quota.remaining(now) - 1;
  const body = {
    data,
    _meta: {
      request_id: requestId,
      cache_hit: false,
      data_freshness_seconds: freshness,
      truncated: nextCursor !== null,
      next_cursor: nextCursor,
      notice: 'Simulated data from the market-data-mcp simulator; not market data.',
      rate_limit_remaining: limits.rate.state(now).remaining,
      quota_remaining_pct: Math.round((quotaAfter / limits.quota.limit) * 10000) / 100,
      data_source: 'simulator',
    },
  };
  if (Buffer.byteLength(JSON.stringify(body)) > settings.ceilingBytes) {
    return fail('RESPONSE_TOO_LARGE', {
      message: `The response would exceed the ${settings.ceilingBytes}-byte ceiling.`,
      hint: 'Lower limit, shorten the range, or use format=summary where the endpoint supports it.',
    });
  }
  limits.quota.charge(now);
  return { status: 200, body, charged: true };
}

export function metaReply(
  operationId: string,
  service: ServiceView,
  key: SimKey,
  account: SimAccount,
  limits: AccountLimits,
  now: number,
): Reply {
  if (operationId === 'meta.openapi') return { status: 200, body: buildOpenApiDocument(service.datasets) };
  if (operationId === 'meta.health')
    return { status: 200, body: { status: 'ok', time: new Date(now).toISOString(), data_source: 'simulator' } };
  return {
    status: 200,
    body: {
      access_scope: key.scopes,
      account_id: account.id,
      data_source: 'simulator',
      datasets: service.datasets.map((d) => ({
        operation_id: d.operationId,
        path: d.path,
        toolset: toolsetOf(d),
        scope: scopeOf(d),
        on_demand: d.onDemand,
        status: d.capability && service.disabled.has(d.capability) ? 'disabled' : 'ready',
        accessible: key.scopes.includes(scopeOf(d)) && (!d.adminOnly || service.adminUserIds.has(account.userId)),
        coverage: d.ticker ? { tickers: UNIVERSE.filter((u) => !u.isIndex || d.indexesSupported !== false).length } : { market_wide: true },
      })),
      capabilities: { dealer_heatmap: service.disabled.has('dealer_heatmap') ? 'disabled' : 'enabled' },
      quota: {
        monthly_limit: limits.quota.limit,
        monthly_remaining: limits.quota.remaining(now),
        resets_at: new Date(limits.quota.resetAtMs(now)).toISOString(),
      },
      limits: { requests_per_minute: service.perWindow, in_flight: service.inFlight },
    },
  };
}
