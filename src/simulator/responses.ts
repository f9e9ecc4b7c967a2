/**
 * What the simulator answers once a request has passed authentication, the limits and
 * validation: a dataset's payload (or RESPONSE_TOO_LARGE), and the free meta endpoints.
 */
import { scopeOf, toolsetOf, type DatasetDefinition, type QueryValues } from '../catalog/index.js';
import type { SimAccount, SimKey } from './accounts.js';
import type { Dialect } from './dialect.js';
import { shapePayload, writeBody } from './dialect-body.js';
import { dialectDocument } from './dialect-document.js';
import { servePage, type RequestUrl, type ServedPage } from './dialect-paging.js';
import type { PageRequest, Publication } from './dialect-params.js';
import { ApiRefusal } from './api-error.js';
import { latestSession } from '../catalog/market-calendar.js';
import {
  catalogGenerator,
  DatasetRefusal,
  isCatalogOperation,
  runtimeDatasetGenerator,
  type Generated,
  type Payload,
} from './generators/index.js';
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
  headers?: Record<string, string>;
}

/** The service state the meta endpoints describe. */
export interface ServiceView {
  datasets: readonly DatasetDefinition[];
  disabled: ReadonlySet<string>;
  adminUserIds: ReadonlySet<string>;
  perWindow: number;
  inFlight: number;
}

/** One request to a dataset route, read into our names (dialect-params.ts). */
export interface DatasetRequest {
  readonly dataset: DatasetDefinition;
  readonly publication: Publication;
  readonly symbol: ReferenceSymbol | undefined;
  readonly filters: QueryValues;
  readonly page: PageRequest;
  readonly requestId: string;
  readonly url: RequestUrl;
}

export function datasetReply(
  settings: { seed: number; ceilingBytes: number },
  request: DatasetRequest,
  limits: AccountLimits,
  now: number,
  dialect: Dialect,
): Reply {
  const { dataset, publication, filters } = request;
  const generate = isCatalogOperation(dataset.operationId) ? catalogGenerator(dataset.operationId) : runtimeDatasetGenerator;
  const ctx = { seed: settings.seed, now, session: latestSession(now), symbol: request.symbol, query: filters };
  const run = (query: QueryValues): Generated => applyQueryFilters(dataset.operationId, { ...ctx, query }, generate);
  let served: ServedPage;
  try {
    if (publication.paging)
      served = servePage({ dataset, paging: publication.paging, filters, page: request.page, url: request.url, generate: run });
    else {
      // One object, or the dealer history's page behind its own cursor.
      const generated = run(filters);
      const token = generated.nextCursor ?? null;
      served = { data: generated.data, asOf: generated.asOf, more: token !== null, fields: publication.dealer ? { token } : {} };
    }
  } catch (error) {
    if (error instanceof DatasetRefusal) throw new ApiRefusal(error.code, { message: error.message, hint: error.hint });
    throw error;
  }
  const quotaAfter = limits.quota.remaining(now) - 1;
  const meta = {
    request_id: request.requestId,
    cache_hit: false,
    data_freshness_seconds: Math.max(0, Math.round((now - served.asOf) / 1000)),
    truncated: served.more,
    notice: 'Simulated data from the market-data-mcp simulator; not market data.',
    rate_limit_remaining: limits.rate.state(now).remaining,
    quota_remaining_pct: Math.round((quotaAfter / limits.quota.limit) * 10000) / 100,
    data_source: DATA_SOURCE,
  };
  const payload = shapePayload(dialect, dataset, finalizePayload(dataset.operationId, filters, served.data) as Payload);
  const body = writeBody({
    dialect,
    dataset,
    payload,
    meta,
    paging: publication.paging,
    more: served.more,
    fields: served.fields,
    requestId: request.requestId,
  });
  if (Buffer.byteLength(JSON.stringify(body)) > settings.ceilingBytes) {
    throw new ApiRefusal('RESPONSE_TOO_LARGE', {
      message: `The response would exceed the ${settings.ceilingBytes}-byte ceiling.`,
      hint: 'Lower limit, shorten the range, or use format=summary where the endpoint supports it.',
    });
  }
  limits.quota.charge(now);
  return { status: 200, body, charged: true, ...(served.fields.link ? { headers: { Link: served.fields.link } } : {}) };
}

export function metaReply(
  operationId: string,
  service: ServiceView,
  key: SimKey,
  account: SimAccount,
  limits: AccountLimits,
  now: number,
  dialect: Dialect,
  origin: string,
): Reply {
  if (operationId === 'meta.openapi') return { status: 200, body: dialectDocument(service.datasets, dialect, origin) };
  if (operationId === 'meta.health')
    return { status: 200, body: { status: 'ok', time: new Date(now).toISOString(), data_source: dialect.traits.values.dataSource } };
  return {
    status: 200,
    body: {
      access_scope: key.scopes,
      account_id: account.id,
      data_source: dialect.traits.values.dataSource,
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
