/**
 * What the simulator answers once a request has passed authentication, the limits and
 * validation: a dataset's payload (or RESPONSE_TOO_LARGE), and the free meta endpoints.
 */
import { buildOpenApiDocument, scopeOf, toolsetOf, type DatasetDefinition, type QueryValues } from '../catalog/index.js';
import type { SimAccount, SimKey } from './accounts.js';
import { pagesAtFixedSize, publishedDataset, type Dialect } from './dialect.js';
import { fixedSizePage } from './fixed-pages.js';
import { ApiRefusal } from './api-error.js';
import { latestSession } from '../catalog/market-calendar.js';
import { catalogGenerator, DatasetRefusal, isCatalogOperation, runtimeDatasetGenerator, type Generated } from './generators/index.js';
import type { AccountLimits } from './limits.js';
import { finalizePayload } from './payload.js';
import { applyQueryFilters } from './query-filters.js';
import { REFERENCE, type ReferenceSymbol } from './reference.js';

/** The one value of `data_source` the simulator sends (meta, health, discover). */
export const DATA_SOURCE = 'simulator';

export interface Reply {
  status: number;
  body: unknown;
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
  symbol: ReferenceSymbol | undefined,
  query: QueryValues,
  requestId: string,
  limits: AccountLimits,
  now: number,
  dialect: Dialect,
): Reply {
  const generate = isCatalogOperation(dataset.operationId) ? catalogGenerator(dataset.operationId) : runtimeDatasetGenerator;
  let generated: Generated;
  let limitHidRows = false;
  try {
    const ctx = { seed: settings.seed, now, session: latestSession(now), symbol, query };
    const limit = query['limit'];
    if (pagesAtFixedSize(dataset, dialect))
      generated = fixedSizePage(dataset, query, dialect.fixedPageSize ?? 25, (q) =>
        applyQueryFilters(dataset.operationId, { ...ctx, query: q }, generate),
      );
    else if (typeof limit === 'number' && !('cursor' in dataset.query)) {
      // One row past the limit tells whether the limit hid rows (`_meta.truncated`), as an
      // upstream's LIMIT n+1 does; datasets with a cursor say so through next_cursor instead.
      const probe = applyQueryFilters(dataset.operationId, { ...ctx, query: { ...query, limit: limit + 1 } }, generate);
      limitHidRows = Array.isArray(probe.data) && probe.data.length > limit;
      generated = limitHidRows && Array.isArray(probe.data) ? { ...probe, data: probe.data.slice(0, limit) } : probe;
    } else generated = applyQueryFilters(dataset.operationId, ctx, generate);
  } catch (error) {
    if (error instanceof DatasetRefusal) throw new ApiRefusal(error.code, { message: error.message, hint: error.hint });
    throw error;
  }
  const nextCursor = generated.nextCursor ?? null;
  const quotaAfter = limits.quota.remaining(now) - 1;
  const meta = {
    request_id: requestId,
    cache_hit: false,
    data_freshness_seconds: Math.max(0, Math.round((now - generated.asOf) / 1000)),
    truncated: nextCursor !== null || limitHidRows,
    notice: 'Simulated data from the market-data-mcp simulator; not market data.',
    rate_limit_remaining: limits.rate.state(now).remaining,
    quota_remaining_pct: Math.round((quotaAfter / limits.quota.limit) * 10000) / 100,
    data_source: DATA_SOURCE,
  };
  const body = dialect.wrap(finalizePayload(dataset.operationId, query, generated.data), meta, nextCursor);
  if (Buffer.byteLength(JSON.stringify(body)) > settings.ceilingBytes) {
    throw new ApiRefusal('RESPONSE_TOO_LARGE', {
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
  dialect: Dialect,
): Reply {
  if (operationId === 'meta.openapi') return { status: 200, body: publishedDocument(service.datasets, dialect) };
  if (operationId === 'meta.health')
    return { status: 200, body: { status: 'ok', time: new Date(now).toISOString(), data_source: DATA_SOURCE } };
  return {
    status: 200,
    body: {
      access_scope: key.scopes,
      account_id: account.id,
      data_source: DATA_SOURCE,
      datasets: service.datasets.map((d) => ({
        operation_id: d.operationId,
        path: d.path,
        toolset: toolsetOf(d),
        scope: scopeOf(d),
        on_demand: d.onDemand,
        status: d.capability && service.disabled.has(d.capability) ? 'disabled' : 'ready',
        accessible: key.scopes.includes(scopeOf(d)) && (!d.adminOnly || service.adminUserIds.has(account.userId)),
        coverage: d.ticker
          ? { tickers: REFERENCE.filter((u) => u.kind !== 'index' || d.indexesSupported !== false).length }
          : { market_wide: true },
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

/** The OpenAPI document as the dialect publishes it: its operation ids, its parameter names. */
function publishedDocument(datasets: readonly DatasetDefinition[], dialect: Dialect): unknown {
  const document = buildOpenApiDocument(datasets.map((d) => publishedDataset(d, dialect)));
  if (dialect.name === 'spec') return document;
  for (const dataset of datasets) {
    const operation = document.paths[dataset.path]?.get;
    if (operation) operation.operationId = dialect.operationId(dataset.operationId);
  }
  return document;
}
