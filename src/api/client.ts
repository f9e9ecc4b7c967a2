/**
 * The one client every tool call goes through. It refuses what it can decide locally
 * (missing config, latched quota, remembered SERVICE_DISABLED), answers from the cache,
 * shares identical requests, and otherwise sends through the account gate, retrying by
 * the policy table within the call's deadline and one retry budget per call.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import { missingForData, type Config } from '../config.js';
import { heapBeforeLoad } from '../heap-policy.js';
import type { Logger } from '../log.js';
import { redactEverywhere } from '../sanitize.js';
import { CACHE_MAX_ENTRY_BYTES, isErrorEnvelope, requestKey, ResponseCache } from './cache.js';
import { abortError, ApiError, cancelledError } from './errors.js';
import type { AccountGate, GateView } from './gate/account-gate.js';
import type { SharedCacheTier } from '../redis/cache.js';
import { systemClock } from './gate/clock.js';
import { InProcessAccountGate } from './gate/in-process-gate.js';
import { buildPath, datasetTarget, metaTarget, type RequestTarget } from './request-target.js';
import { driveRetries } from './retry-driver.js';
import { SharedRequests, type Flight } from './shared-request.js';
import { HttpTransport } from './transport.js';
import { deadlineExceeded } from './deadline-error.js';
import { answeredLongerThan, apiResultSchema, readAnswer, toResult, transportFailure, type ApiResult } from './upstream-answer.js';
import { callerSignal } from '../transports/caller-scope.js';

export type { ApiResult };

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
    heapBeforeLoad();
    return this.request(datasetTarget(dataset, ticker, query), options);
  }

  /** A free meta endpoint (discover, health, openapi.json). */
  meta(path: '/v1/discover' | '/v1/health' | '/v1/openapi.json', options: CallOptions & { cacheTtlMs?: number } = {}): Promise<ApiResult> {
    return this.request(metaTarget(path, options.cacheTtlMs ?? 0), options);
  }

  /** The configured per-call deadline: a tool that makes several requests shares it among them. */
  get deadlineMs(): number {
    return this.deps.config.deadlineMs;
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
        leaveError: (charged) =>
          gone?.aborted ? abortError(gone) : options.signal?.aborted ? cancelledError() : deadlineExceeded(charged),
      });
    const tier = target.cacheTtlMs > 0 ? this.deps.sharedCache : undefined;
    let result: ApiResult;
    if (tier) {
      // An error envelope under a 200 is never data (the LRU refuses it too).
      const shared = await tier.readThrough(key, target.cacheTtlMs, join, { signal, now: this.now, cacheable: (r) => !isErrorEnvelope(r) });
      const age = Math.max(0, Math.round((this.now() - shared.storedAt) / 1000));
      // What another process left in Redis is read back from JSON: used only when it has a result's shape.
      const peers = shared.fromPeer ? apiResultSchema.safeParse(shared.value) : undefined;
      if (peers?.success === false) this.deps.log.debug({ op: target.operationId }, 'shared cache entry not a result; sent instead');
      result =
        peers === undefined
          ? shared.value
          : peers.success
            ? { data: peers.data.data, meta: { ...peers.data.meta, cache_hit: true, age_seconds: age } }
            : await join();
      this.deps.log.debug({ op: target.operationId, shared_cache_hit: shared.fromPeer, age_seconds: age }, 'shared cache');
    } else result = await join();
    // A page whose body alone is over an entry's cap is not serialized again only to be refused (megabytes in one go).
    if (target.cacheTtlMs > 0 && !answeredLongerThan(result, CACHE_MAX_ENTRY_BYTES)) this.cache.set(key, result, target.cacheTtlMs);
    return result;
  }

  /** One upstream request, its retries driven by the policy table (retry-driver.ts). */
  private send(transport: HttpTransport, target: RequestTarget, pathAndQuery: string, flight: Flight): Promise<ApiResult> {
    return driveRetries<ApiResult>(
      { gate: this.gate, now: this.now, random: this.random, sleep: this.sleep },
      {
        flight,
        free: target.free === true,
        capability: target.capability,
        send: async (attempt) => {
          const started = this.now();
          // Let the event loop report callers who hung up while this one waited (their
          // connections' ends are read after the request that carried them): a request for
          // nobody is not sent, and an aborted signal makes the send fail without a request.
          await new Promise((resolve) => setImmediate(resolve));
          // A slot freed by calls running out of time goes to one whose own time is out too: it
          // sends nothing, so it must still say nothing was charged.
          if (!flight.signal.aborted) flight.sending();
          const response = await transport
            // A 200 of a data request costs a unit (spec): a deadline after it must say so.
            .get(pathAndQuery, flight.signal, (status) => flight.answered(status === 200 && target.free !== true))
            .catch((error: unknown) => transportFailure(error, flight.signal));
          const answer = readAnswer(response);
          const { answered, outcome } = answer;
          const failed = answer.ok ? undefined : answer.failed;
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
          if (!answer.ok) return { ok: false, failed: answer.failed, outcome, quotaResetAt: answered?.limits.quotaResetAt };
          return { ok: true, value: await toResult(target.operationId, answer.answered, target.readerCleans !== true), outcome };
        },
      },
    );
  }
}
