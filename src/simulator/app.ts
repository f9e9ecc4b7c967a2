/**
 * The simulated API as a hono app: the framework routes the catalog's paths, each check is
 * one middleware (checks.ts), one error handler writes every envelope, and the data handler
 * runs the dataset's generator. Rebuilt when a dataset is registered at run time.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { API_ERROR_CODES, META_ENDPOINTS, type DatasetDefinition } from '../catalog/index.js';
import { ApiRefusal, type SimEnv } from './api-error.js';
import {
  accountRate,
  adminOnly,
  authentication,
  capability,
  circuit,
  coveredSymbol,
  faults,
  inFlightCap,
  ipRate,
  materialization,
  quota,
  readOnly,
  retention,
  scope,
  validation,
} from './checks.js';
import { errorEnvelope } from './envelope.js';
import { publication, readQuery } from './dialect-params.js';
import { datasetReply, metaReply } from './responses.js';
import type { SimulatedApi } from './server.js';

export const DOCS_PATH = '/docs/errors';

/** Hono's path syntax for a catalog path: `{ticker}` becomes a `:ticker` segment. */
function honoPath(path: string): string {
  return path.replace('{ticker}', ':ticker');
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A JSON body, shaped by a fault when one was injected for this response. */
function jsonResponse(c: Context<SimEnv>, status: number, body: unknown, extraHeaders: Record<string, string> = {}): Response {
  const shape = c.get('shape');
  let text = JSON.stringify(body);
  if (shape?.kind === 'malformed') text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  if (shape?.kind === 'oversize') text = JSON.stringify({ ...(body as object), padding: 'x'.repeat(shape.bytes) });
  const headers = { 'Content-Type': 'application/json; charset=utf-8', ...extraHeaders };
  if (shape?.kind === 'slow-drip') {
    const chunks = shape.chunks ?? 20;
    const size = Math.ceil(text.length / chunks);
    const encoder = new TextEncoder();
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (offset >= text.length) return controller.close();
        controller.enqueue(encoder.encode(text.slice(offset, offset + size)));
        offset += size;
        await delay(shape.chunkDelayMs);
      },
    });
    return new Response(stream, { status, headers });
  }
  return new Response(text, { status, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(text)) } });
}

export function buildApp(sim: SimulatedApi, datasets: readonly DatasetDefinition[]): Hono<SimEnv> {
  const app = new Hono<SimEnv>();
  app.onError((error, c) => errorReply(sim, error, c));
  app.use('*', recordAndHeaders(sim));
  app.use('*', authentication(sim), ipRate(sim), accountRate(sim), inFlightCap(sim), readOnly);
  for (const meta of META_ENDPOINTS) app.get(meta.path, (c) => metaRoute(sim, meta.operationId, c));
  for (const dataset of datasets) routeDataset(app, sim, dataset);
  app.all('*', () => {
    throw new ApiRefusal('NOT_FOUND', { hint: 'See /v1/openapi.json for the catalogue.' });
  });
  return app;
}

/** Any refusal (or a bug) as the spec's error envelope, with the status of its code. */
function errorReply(sim: SimulatedApi, error: Error, c: Context<SimEnv>): Response {
  const refusal = error instanceof ApiRefusal ? error : new ApiRefusal('INTERNAL_ERROR');
  const { code, details } = refusal;
  const envelope = errorEnvelope({
    code,
    requestId: c.get('requestId') ?? null,
    docsBase: sim.docsUrl ?? `${sim.origin}${DOCS_PATH}`,
    ...(details.message === undefined ? {} : { message: details.message }),
    ...(details.hint === undefined ? {} : { hint: details.hint }),
    ...(details.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: details.retryAfterSeconds }),
  });
  c.set('code', code);
  c.set('retryAfterSeconds', envelope.error.retry_after_seconds);
  c.set('shape', undefined);
  return jsonResponse(c, details.status ?? API_ERROR_CODES[code].status, envelope);
}

/** Every request: an id, the clock, the record, and the headers of every answer. */
function recordAndHeaders(sim: SimulatedApi): MiddlewareHandler<SimEnv> {
  return async (c, next) => {
    // On the simulator's clock, so that a test driving a fake clock reads its own instants here.
    const arrivedAt = sim.now();
    c.set('requestId', sim.nextRequestId());
    c.set('now', arrivedAt);
    c.set('charged', false);
    c.set('reset', false);
    sim.trackInFlight(c.env.outgoing);
    await next();
    const path = new URL(c.req.url);
    sim.record({
      at: arrivedAt,
      doneAt: sim.now(),
      method: c.req.method,
      path: path.pathname,
      query: path.search,
      operationId: c.get('dataset')?.operationId ?? META_ENDPOINTS.find((m) => m.path === path.pathname)?.operationId,
      accountId: c.get('account')?.id,
      status: c.get('reset') ? 0 : c.res.status,
      code: c.get('code'),
      charged: c.get('charged'),
    });
    if (c.get('reset')) return;
    const headers = sim.commonHeaders(c.get('account'), c.env.incoming.socket.remoteAddress ?? 'unknown', c.get('requestId'));
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
    const retry = c.get('retryAfterSeconds');
    if (retry !== undefined && [429, 202, 503].includes(c.res.status)) c.res.headers.set('Retry-After', String(retry));
  };
}

/** A free meta endpoint (discover, status, usage, the OpenAPI document). */
function metaRoute(sim: SimulatedApi, operationId: (typeof META_ENDPOINTS)[number]['operationId'], c: Context<SimEnv>): Response {
  const key = c.get('key');
  const account = c.get('account');
  if (!key || !account) throw new ApiRefusal('AUTH_INVALID');
  if (operationId === 'meta.openapi' && sim.documentOutage)
    throw new ApiRefusal('READ_MODEL_UNAVAILABLE', { message: 'The document is not available now.', retryAfterSeconds: 1 });
  const reply = metaReply(
    operationId,
    sim.serviceView(),
    key,
    account,
    sim.accountLimits(account.id),
    c.get('now'),
    sim.dialect,
    sim.origin,
  );
  return jsonResponse(c, reply.status, reply.body);
}

/** One dataset's route: the spec's checks in order (quota, faults, scope, validation, coverage, retention), then its rows. */
function routeDataset(app: Hono<SimEnv>, sim: SimulatedApi, dataset: DatasetDefinition): void {
  // Validation reads the parameters as the dialect publishes them; the rest reads ours.
  const published = publication(dataset, sim.dialect);
  app.get(
    honoPath(dataset.path),
    async (c, next) => {
      c.set('dataset', published.published);
      await next();
    },
    quota(sim),
    circuit(sim),
    faults(sim),
    scope,
    adminOnly(sim),
    capability(sim),
    validation(published.exploded),
    async (c, next) => {
      const read = readQuery(published, c.get('query'));
      c.set('dataset', dataset);
      c.set('query', read.filters);
      c.set('page', read.page);
      await next();
    },
    coveredSymbol,
    retention,
    materialization(sim),
    (c) => {
      const account = c.get('account');
      if (!account) throw new ApiRefusal('AUTH_INVALID');
      const url = new URL(c.req.url);
      const reply = datasetReply(
        sim.dataSettings(),
        {
          dataset,
          publication: published,
          symbol: c.get('symbol'),
          filters: c.get('query'),
          page: c.get('page'),
          requestId: c.get('requestId'),
          url: { origin: sim.origin, path: url.pathname, search: url.searchParams },
        },
        sim.accountLimits(account.id),
        c.get('now'),
        sim.dialect,
      );
      c.set('charged', reply.charged ?? false);
      return jsonResponse(c, reply.status, reply.body, reply.headers);
    },
  );
}
