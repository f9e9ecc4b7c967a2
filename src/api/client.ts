/**
 * The one client every tool call goes through. It refuses what it can decide locally
 * (missing config, latched quota, remembered SERVICE_DISABLED), answers from the cache,
 * shares identical requests, and otherwise sends through the account gate, retrying by
 * the policy table within the call's deadline and one retry budget per call.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import { upstreamQuery } from '../catalog/upstream-names.js';
import { missingForData, type Config } from '../config.js';
import type { Logger } from '../log.js';
import { MAX_DEPTH, nestedDeeperThan, redactEverywhere, sanitizeDeep, sanitizeText } from '../sanitize.js';
import { CACHE_TTL_MS, isErrorEnvelope, requestKey, ResponseCache } from './cache.js';
import { knownOnly, type ResultMeta } from './result-meta.js';
import { abortError, ApiError, cancelledError, errorFromResponse } from './errors.js';
import type { AccountGate, GateView, PermitOutcome } from './gate/account-gate.js';
import type { SharedCacheTier } from './cache-redis.js';
import { systemClock } from './gate/clock.js';
import { InProcessAccountGate } from './gate/in-process-gate.js';
import { clampWaitSeconds } from './limit-headers.js';
import { mayRetry, RETRY_POLICY, retryDelayMs } from './retry-policy.js';
import { SharedRequests, type Flight } from './shared-request.js';
import { HttpTransport, type RawResponse } from './transport.js';
import { payloadParts } from './payload-parts.js';
import { callerSignal } from '../transports/caller-scope.js';

export interface ApiResult {
  data: unknown;
  meta: ResultMeta;
}

export interface ProgressEvent {
  /** What the call waits for, in words an agent or a person can read. */
  message: string;
  waitMs: number;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** Overrides the configured per-call deadline. */
  deadlineMs?: number | undefined;
  onProgress?: ((event: ProgressEvent) => void) | undefined;
}

export interface ClientDeps {
  config: Config;
  log: Logger;
  /** Base URL to use in demo mode (the embedded simulator) or to override config. */
  baseUrl?: string;
  apiKey?: string;
  /** The account gate; default one in this process. The Redis gate drops in here. */
  gate?: AccountGate;
  /**
   * The account's second cache tier (Redis), shared by its processes: read after the
   * in-process LRU misses, written after every 200, and the place where identical calls
   * of several processes share one upstream request.
   */
  sharedCache?: SharedCacheTier<ApiResult> | undefined;
  now?: () => number;
  random?: () => number;
  /** Waits between retries; tests pass one that does not sleep. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  userAgent?: string;
  /** A configuration problem to report as CONFIG_INVALID on every call (the server still starts). */
  configProblem?: string | undefined;
}

/** Where a request goes: a dataset with validated parameters, or a meta endpoint. */
export interface RequestTarget {
  operationId: string;
  path: `/v1/${string}`;
  ticker?: string | undefined;
  query: QueryValues;
  cacheTtlMs: number;
  /** Key under which SERVICE_DISABLED is remembered. */
  capability: string;
  /** discover, health, openapi.json: free of quota, so the quota latch lets them through. */
  free?: boolean | undefined;
}

/** One call's retry state, shared by every attempt. */
interface CallState {
  readonly flight: Flight;
  readonly capability: string;
  /** Retries made so far, whatever they were for: one budget per call. */
  retries: number;
  /** Waits of each kind so far, for the backoff's exponent. */
  readonly waits: Map<string, number>;
}

export class MarketDataClient {
  readonly gate: AccountGate;
  private readonly transport: HttpTransport | undefined;
  private readonly cache: ResponseCache<ApiResult>;
  private readonly shared = new SharedRequests<ApiResult>();
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly configProblem: string | undefined;

  constructor(private readonly deps: ClientDeps) {
    const now = deps.now ?? Date.now;
    this.now = now;
    this.random = deps.random ?? Math.random;
    this.sleep = deps.sleep ?? ((ms, signal) => sleepFor(ms, undefined, { signal }).then(() => undefined));
    this.gate = deps.gate ?? new InProcessAccountGate({ clock: { now, after: (ms, run) => systemClock.after(ms, run) } });
    this.cache = new ResponseCache<ApiResult>(deps.config.cacheEntries, this.now);
    const baseUrl = deps.baseUrl ?? deps.config.baseUrl;
    const apiKey = deps.apiKey ?? deps.config.apiKey;
    // An upstream that echoes the key (in data, a message, a hint) must not show it to the agent.
    redactEverywhere(apiKey);
    this.configProblem = deps.configProblem ?? (deps.baseUrl && deps.apiKey ? undefined : missingForData(deps.config));
    this.transport =
      baseUrl && apiKey && !deps.configProblem
        ? new HttpTransport({
            baseUrl,
            apiKey,
            maxResponseBytes: deps.config.maxResponseBytes,
            userAgent: deps.userAgent ?? 'market-data-mcp',
            // The account's 5 in flight, and room for a request still closing.
            connections: 8,
            now,
          })
        : undefined;
  }

  /**
   * Drops this process's cached answer of a dataset call: a result the MCP layer could not
   * shape (a bug of ours) must not be served again as if it were good.
   */
  forget(dataset: DatasetDefinition, ticker: string | undefined, query: QueryValues): void {
    const target = datasetTarget(dataset, ticker, query);
    this.cache.delete(requestKey(buildPath(target), target.query));
  }

  /** Milliseconds an identical dataset call is still answered from this process's cache (0: it would be sent). */
  cachedForMs(dataset: DatasetDefinition, ticker: string | undefined, query: QueryValues): number {
    const target = datasetTarget(dataset, ticker, query);
    return this.cache.remainingMs(requestKey(buildPath(target), target.query));
  }

  /** A dataset call; `ticker` and `query` must already be validated against the catalog. */
  dataset(dataset: DatasetDefinition, ticker: string | undefined, query: QueryValues, options: CallOptions = {}): Promise<ApiResult> {
    return this.request(datasetTarget(dataset, ticker, query), options);
  }

  /** A free meta endpoint (discover, health, openapi.json). */
  meta(path: '/v1/discover' | '/v1/health' | '/v1/openapi.json', options: CallOptions & { cacheTtlMs?: number } = {}): Promise<ApiResult> {
    return this.request(
      {
        operationId: `meta.${path.slice(4).replace('.json', '')}`,
        path,
        query: {},
        cacheTtlMs: options.cacheTtlMs ?? 0,
        capability: path,
        free: true,
      },
      options,
    );
  }

  /** The gate's view of the account's limits, and the cache's size. */
  async budget(): Promise<GateView & { cache_entries: number }> {
    return { ...(await this.gate.view()), cache_entries: this.cache.size };
  }

  async close(): Promise<void> {
    await this.gate.close();
    await this.transport?.close();
  }

  async request(target: RequestTarget, options: CallOptions = {}): Promise<ApiResult> {
    const transport = this.transport;
    if (!transport) {
      throw new ApiError({
        code: 'CONFIG_INVALID',
        status: null,
        hint: this.configProblem,
        local: true,
      });
    }
    const disabledFor = await this.gate.disabledFor(target.capability);
    if (disabledFor !== undefined) {
      throw new ApiError({
        code: 'SERVICE_DISABLED',
        status: 503,
        message: `This capability answered SERVICE_DISABLED recently; not asking again for ${disabledFor} s.`,
        hint: 'Degrade: use another dataset for now and retry at low frequency.',
        local: true,
      });
    }
    const path = buildPath(target);
    // The key is the request itself: path plus sorted query, also what is sent.
    const key = requestKey(path, target.query);
    const cached = target.cacheTtlMs > 0 ? this.cache.get(key) : undefined;
    if (cached) {
      const age = Math.max(0, Math.round((this.now() - cached.storedAt) / 1000));
      this.deps.log.debug({ op: target.operationId, cache_hit: true, age_seconds: age }, 'cache hit');
      return { data: cached.value.data, meta: { ...cached.value.meta, cache_hit: true, age_seconds: age } };
    }
    const deadlineMs = options.deadlineMs ?? this.deps.config.deadlineMs;
    const timeout = AbortSignal.timeout(deadlineMs);
    // An --http caller that hung up leaves at once, queued or in flight (transports/caller-scope.ts).
    const gone = callerSignal();
    const signal = AbortSignal.any([options.signal, gone, timeout].filter((s): s is AbortSignal => s !== undefined));
    const join = (): Promise<ApiResult> =>
      this.shared.join(key, (flight) => this.send(transport, target, key, flight), {
        signal,
        deadline: this.now() + deadlineMs,
        onProgress: options.onProgress,
        leaveError: () => (gone?.aborted ? abortError(gone) : options.signal?.aborted ? cancelledError() : deadlineExceeded()),
      });
    const tier = target.cacheTtlMs > 0 ? this.deps.sharedCache : undefined;
    let result: ApiResult;
    if (tier) {
      // An error envelope under a 200 is never data (the LRU refuses it too).
      const shared = await tier.readThrough(key, target.cacheTtlMs, join, { signal, now: this.now, cacheable: (r) => !isErrorEnvelope(r) });
      const age = Math.max(0, Math.round((this.now() - shared.storedAt) / 1000));
      result = shared.fromPeer
        ? { data: shared.value.data, meta: { ...shared.value.meta, cache_hit: true, age_seconds: age } }
        : shared.value;
      this.deps.log.debug({ op: target.operationId, shared_cache_hit: shared.fromPeer, age_seconds: age }, 'shared cache');
    } else result = await join();
    if (target.cacheTtlMs > 0) this.cache.set(key, result, target.cacheTtlMs);
    return result;
  }

  private async send(transport: HttpTransport, target: RequestTarget, pathAndQuery: string, flight: Flight): Promise<ApiResult> {
    const call: CallState = { flight, capability: target.capability, retries: 0, waits: new Map() };
    for (let attempt = 1; ; attempt += 1) {
      const permit = await this.gate.acquire({
        free: target.free === true,
        deadline: flight.deadline(),
        signal: flight.signal,
        onWait: (ms, reason) =>
          flight.progress({ message: `Queued: ${reason}${ms > 0 ? `; about ${Math.ceil(ms / 1000)} s` : ''}.`, waitMs: ms }),
      });
      const started = this.now();
      let released = false;
      const release = (outcome: PermitOutcome): void => {
        if (!released) permit.release(outcome);
        released = true;
      };
      try {
        // Let the event loop report callers who hung up while this one waited (their
        // connections' ends are read after the request that carried them): a request for
        // nobody is not sent, and an aborted signal makes the send fail without a request.
        await new Promise((resolve) => setImmediate(resolve));
        const response = await transport.get(pathAndQuery, flight.signal).catch((error: unknown) => this.failure(error, flight.signal));
        const answered = response instanceof ApiError ? undefined : response;
        const failed = answered ? this.classify(answered) : (response as ApiError);
        const outcome: PermitOutcome = {
          status: answered?.status ?? failed?.status ?? undefined,
          headers: answered?.limits,
          code: failed?.code,
        };
        this.deps.log.info(
          {
            op: target.operationId,
            status: outcome.status,
            code: failed?.code,
            ms: this.now() - started,
            request_id: answered?.requestId ?? failed?.requestId,
            cache_hit: false,
            attempt,
            rate_remaining: answered?.limits.rateRemaining,
            quota_remaining: answered?.limits.quotaRemaining,
          },
          'upstream request',
        );
        if (failed === undefined) {
          release(outcome);
          // A response that is not an ApiError answered; classify found no failure in it.
          return toResult(target.operationId, answered as RawResponse);
        }
        if (target.free && failed.status === 429) {
          // A free request (openapi.json, discover at start) that meets a spent window neither
          // pauses the account nor shrinks its cap, and is not retried into the data calls
          // that follow: its caller keeps what it has and asks again later.
          release(outcome);
          throw failed;
        }
        const quotaResetAt = answered?.limits.quotaResetAt;
        if (RETRY_POLICY[failed.kind].kind === 'in-flight') {
          // Another process of the account is sending: the whole process backs off, and this
          // call keeps its slot through the wait so that the next queued call is not refused too.
          this.gate.inFlightRefused();
          try {
            await this.retryOrThrow(failed, call, quotaResetAt);
          } finally {
            release(outcome);
          }
          continue;
        }
        release(outcome);
        await this.retryOrThrow(failed, call, quotaResetAt);
      } finally {
        release({});
      }
    }
  }

  /** Applies the policy table: returns after the wait when the call should go again, throws otherwise. */
  private async retryOrThrow(error: ApiError, call: CallState, quotaResetAt: number | undefined): Promise<void> {
    const rule = RETRY_POLICY[error.kind];
    if (rule.kind === 'latch-quota') {
      this.gate.latchQuota(quotaResetAt ?? this.now() + (error.retryAfterSeconds ?? 3600) * 1000);
      throw error;
    }
    if (rule.kind === 'remember-disabled') {
      this.gate.rememberDisabled(call.capability, this.now() + rule.rememberMs);
      throw error;
    }
    // A code this client does not know acts by its status, and a refusal (4xx) is final.
    const unknownRefusal = error.code !== error.kind && error.status !== null && error.status >= 400 && error.status < 500;
    if (unknownRefusal || !mayRetry(rule, call.retries)) throw error;
    const waits = (call.waits.get(rule.kind) ?? 0) + 1;
    call.waits.set(rule.kind, waits);
    const serverWait = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
    const wait = retryDelayMs(rule, waits, serverWait, this.random);
    if (this.now() + wait > call.flight.deadline()) {
      // Answer now rather than let the host time the call out.
      throw new ApiError({
        code: error.code,
        kind: error.kind,
        status: error.status,
        message: error.message,
        hint: error.hint,
        recoverable: true,
        retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)),
        docsUrl: error.docsUrl,
        requestId: error.requestId,
        tags: error.tags,
      });
    }
    if (rule.kind !== 'poll') call.retries += 1;
    const seconds = Math.ceil(wait / 1000);
    if (rule.kind === 'wait-server' && rule.pauseAccount) {
      // The whole account waits, not just this call: the gate holds every queued call.
      this.gate.pause(this.now() + wait);
      call.flight.progress({ message: `${error.code}: the account pauses for ${seconds} s as the API asked.`, waitMs: wait });
      return;
    }
    call.flight.progress({
      message:
        rule.kind === 'poll'
          ? `The API is building this dataset (202); checking again in ${seconds} s.`
          : `${error.code}: retrying in ${seconds} s.`,
      waitMs: wait,
    });
    await this.sleep(wait, call.flight.signal).catch(() => undefined);
    if (call.flight.signal.aborted) throw abortError(call.flight.signal);
  }

  private failure(error: unknown, signal: AbortSignal): ApiError {
    if (signal.aborted) return abortError(signal);
    if (error instanceof ApiError) return error;
    return new ApiError({ code: 'NETWORK_ERROR', status: null });
  }

  private classify(response: RawResponse): ApiError | undefined {
    if (response.status === 200) {
      if (response.bodyInvalid || typeof response.body !== 'object' || response.body === null) {
        return new ApiError({
          code: 'RESPONSE_INVALID',
          status: 200,
          message: 'The API answered 200 with a body that broke off or is not valid JSON; the unit was charged, so it is not retried.',
          hint: 'Call again later if you need it; report the request id if it persists.',
          requestId: response.requestId ?? null,
        });
      }
      if (nestedDeeperThan(response.body, MAX_DEPTH)) {
        return new ApiError({
          code: 'RESPONSE_INVALID',
          status: 200,
          message: `The API answered 200 with JSON nested deeper than ${MAX_DEPTH} levels; it was not used.`,
          hint: 'Retry later; report the request id if it persists.',
          requestId: response.requestId ?? null,
        });
      }
      return undefined;
    }
    if (response.status === 202) {
      const body = response.body as { retry_after_seconds?: unknown } | undefined;
      return new ApiError({
        code: 'NOT_READY',
        status: 202,
        hint: 'Call again shortly; waiting for it is not charged.',
        retryAfterSeconds: clampWaitSeconds(body?.retry_after_seconds) ?? response.retryAfterSeconds,
        requestId: response.requestId ?? null,
      });
    }
    if (response.status > 200 && response.status < 300) {
      return new ApiError({
        code: 'RESPONSE_INVALID',
        status: response.status,
        message: `The API answered ${response.status}, which this client does not expect.`,
        requestId: response.requestId ?? null,
      });
    }
    return errorFromResponse(response.status, response.body, response.retryAfterSeconds, response.requestId);
  }
}

function deadlineExceeded(): ApiError {
  return new ApiError({
    code: 'DEADLINE_EXCEEDED',
    status: null,
    hint: 'Retry; if it keeps happening, ask for less data.',
    recoverable: true,
    retryAfterSeconds: 1,
    local: true,
  });
}

/** What a dataset call asks of the API: one place, so a call and its cache key never disagree. */
function datasetTarget(dataset: DatasetDefinition, ticker: string | undefined, query: QueryValues): RequestTarget {
  return {
    operationId: dataset.operationId,
    path: dataset.path,
    ticker,
    // Sent under the upstream's own names (its document may say `pageSize` for our `limit`).
    query: upstreamQuery(dataset, query),
    cacheTtlMs: CACHE_TTL_MS[dataset.cacheClass],
    capability: dataset.capability ?? dataset.operationId,
  };
}

/** The path with its ticker encoded; nothing that could become a `.`/`..` segment survives. */
function buildPath(target: RequestTarget): string {
  if (!target.path.includes('{ticker}')) return target.path;
  const ticker = target.ticker ?? '';
  if (ticker === '' || ticker === '.' || ticker === '..' || ticker.includes('/')) {
    throw new ApiError({ code: 'TICKER_INVALID', status: null, message: 'The ticker is missing or not a path segment.', local: true });
  }
  return target.path.replace('{ticker}', encodeURIComponent(ticker));
}

function toResult(operationId: string, response: RawResponse): ApiResult {
  // Rows, meta and cursor wherever the upstream put them (payload-parts.ts); an unknown shape comes back whole.
  const parts = payloadParts(response.body);
  const upstream = parts.meta;
  const str = (value: unknown, max = 500): string | null => (typeof value === 'string' ? sanitizeText(value, max) : null);
  const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  // Upstream text is data, not instructions: no hidden or reordering characters reach the agent.
  const data = sanitizeDeep(parts.data);
  return {
    data,
    meta: knownOnly<ResultMeta>({
      operation_id: operationId,
      request_id: str(upstream['request_id'], 100) ?? response.requestId ?? null,
      cache_hit: false,
      age_seconds: 0,
      data_freshness_seconds: num(upstream['data_freshness_seconds']),
      next_cursor: str(parts.nextCursor, 512),
      truncated: upstream['truncated'] === true,
      notice: str(upstream['notice']),
      rate_limit_remaining: response.limits.rateRemaining ?? num(upstream['rate_limit_remaining']),
      quota_remaining: response.limits.quotaRemaining ?? null,
      quota_remaining_pct: num(upstream['quota_remaining_pct']),
      data_source: str(upstream['data_source'], 100),
    }),
  };
}
