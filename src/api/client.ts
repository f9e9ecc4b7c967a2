/**
 * The one client every tool call goes through. It refuses what it can decide locally
 * (missing config, latched quota, remembered SERVICE_DISABLED), answers from the cache,
 * shares identical requests, and otherwise sends through the account limiter, retrying
 * by the policy table within the call's deadline.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import { missingForData, type Config } from '../config.js';
import type { Logger } from '../log.js';
import { MAX_DEPTH, nestedDeeperThan, redactEverywhere, sanitizeDeep, sanitizeText } from '../sanitize.js';
import { CACHE_TTL_MS, requestKey, ResponseCache } from './cache.js';
import { knownOnly, type ResultMeta } from './result-meta.js';
import { abortError, ApiError, errorFromResponse } from './errors.js';
import { AccountLimiter, type BudgetView } from './limiter.js';
import { RETRY_POLICY, retryDelayMs } from './retry-policy.js';
import { HttpTransport, type RawResponse } from './transport.js';

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
  limiter?: AccountLimiter;
  now?: () => number;
  random?: () => number;
  userAgent?: string;
  /** A configuration problem to report as CONFIG_INVALID on every call (the server still starts). */
  configProblem?: string | undefined;
}

/** One call's retry state, shared by every attempt. */
interface RetryContext {
  retries: Map<string, number>;
  deadline: number;
  signal: AbortSignal;
  /** Key under which SERVICE_DISABLED is remembered. */
  capability: string;
  /** From the answer being handled: when a QUOTA_EXHAUSTED lifts. */
  quotaResetAt: number | undefined;
  progress: (message: string, waitMs: number) => void;
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
}

export class MarketDataClient {
  readonly limiter: AccountLimiter;
  private readonly transport: HttpTransport | undefined;
  private readonly cache: ResponseCache<ApiResult>;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly configProblem: string | undefined;

  constructor(private readonly deps: ClientDeps) {
    this.now = deps.now ?? Date.now;
    this.random = deps.random ?? Math.random;
    this.limiter = deps.limiter ?? new AccountLimiter({ now: this.now });
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
            connections: this.limiter.maxInFlight + 2,
          })
        : undefined;
  }

  /** A dataset call; `ticker` and `query` must already be validated against the catalog. */
  dataset(dataset: DatasetDefinition, ticker: string | undefined, query: QueryValues, options: CallOptions = {}): Promise<ApiResult> {
    return this.request(
      {
        operationId: dataset.operationId,
        path: dataset.path,
        ticker,
        query,
        cacheTtlMs: CACHE_TTL_MS[dataset.cacheClass],
        capability: dataset.capability ?? dataset.operationId,
      },
      options,
    );
  }

  /** A free meta endpoint (discover, health, openapi.json). */
  meta(path: '/v1/discover' | '/v1/health' | '/v1/openapi.json', options: CallOptions & { cacheTtlMs?: number } = {}): Promise<ApiResult> {
    return this.request(
      { operationId: `meta.${path.slice(4).replace('.json', '')}`, path, query: {}, cacheTtlMs: options.cacheTtlMs ?? 0, capability: path },
      options,
    );
  }

  budget(): BudgetView & { cache_entries: number } {
    return { ...this.limiter.view(), cache_entries: this.cache.size };
  }

  async close(): Promise<void> {
    await this.limiter.close();
    await this.transport?.close();
  }

  async request(target: RequestTarget, options: CallOptions = {}): Promise<ApiResult> {
    const transport = this.transport;
    if (!transport) {
      throw new ApiError({
        code: 'CONFIG_INVALID',
        status: null,
        message: 'The server is not configured to reach the API.',
        hint: this.configProblem,
        local: true,
      });
    }
    const disabledFor = this.limiter.disabledFor(target.capability);
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
    const deadline = this.now() + (options.deadlineMs ?? this.deps.config.deadlineMs);
    const callerSignal = options.signal ?? new AbortController().signal;
    const { promise } = this.cache.shared(
      key,
      (signal) => this.send(transport, target, key, deadline, signal, options),
      withDeadline(callerSignal, deadline, this.now),
    );
    // Anything but an ApiError is a bug of ours: it goes up as it is, to be logged with its stack.
    const result = await promise;
    if (target.cacheTtlMs > 0) this.cache.set(key, result, target.cacheTtlMs);
    return result;
  }

  private async send(
    transport: HttpTransport,
    target: RequestTarget,
    pathAndQuery: string,
    deadline: number,
    signal: AbortSignal,
    options: CallOptions,
  ): Promise<ApiResult> {
    const call: RetryContext = {
      retries: new Map<string, number>(),
      deadline,
      signal,
      capability: target.capability,
      quotaResetAt: undefined,
      progress: (message, waitMs) => options.onProgress?.({ message, waitMs }),
    };
    for (let attempt = 1; ; attempt += 1) {
      const started = this.now();
      const response = await this.limiter
        .run(() => transport.get(pathAndQuery, signal), {
          signal,
          deadline,
          limitsOf: (answer) => answer.limits,
          onWait: (ms) => call.progress(`Queued: the account's request budget refills in ${Math.ceil(ms / 1000)} s.`, ms),
        })
        .catch((error: unknown) => this.failure(error, signal));
      if (response instanceof ApiError) {
        // Decided here without a request (latched quota, a wait past the deadline): final.
        if (response.local) throw response;
        await this.retryOrThrow(response, call);
        continue;
      }
      const error = this.classify(response);
      this.deps.log.info(
        {
          op: target.operationId,
          status: response.status,
          code: error?.code,
          ms: this.now() - started,
          request_id: response.requestId,
          cache_hit: false,
          attempt,
          rate_remaining: response.limits.rateRemaining,
          quota_remaining: response.limits.quotaRemaining,
        },
        'upstream request',
      );
      if (!error) return toResult(target.operationId, response);
      await this.retryOrThrow(error, { ...call, quotaResetAt: response.limits.quotaResetAt });
    }
  }

  /** Applies the policy table: returns after the wait when the call should go again, throws otherwise. */
  private async retryOrThrow(error: ApiError, call: RetryContext): Promise<void> {
    const rule = RETRY_POLICY[error.code];
    if (rule.kind === 'never') throw error;
    if (rule.kind === 'latch-quota') {
      this.limiter.latchQuota(call.quotaResetAt ?? this.now() + (error.retryAfterSeconds ?? 3600) * 1000);
      throw error;
    }
    if (rule.kind === 'remember-disabled') {
      this.limiter.rememberDisabled(call.capability, this.now() + rule.rememberMs);
      throw error;
    }
    const used = (call.retries.get(error.code) ?? 0) + 1;
    // A 202 is polled until the deadline: waiting for it costs nothing.
    if (rule.kind !== 'poll' && used > rule.maxRetries) throw error;
    call.retries.set(error.code, used);
    const serverWait = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
    const wait =
      rule.kind === 'wait-server'
        ? (serverWait ?? 1000)
        : rule.kind === 'poll'
          ? (serverWait ?? retryDelayMs(rule, used, this.random))
          : retryDelayMs(rule, used, this.random);
    if (this.now() + wait > call.deadline) {
      // Answer now rather than let the host time the call out.
      throw new ApiError({
        code: error.code,
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
    const seconds = Math.ceil(wait / 1000);
    if (rule.kind === 'wait-server' && rule.pauseAccount) {
      // The whole account waits, not just this call: the limiter holds every queued job.
      this.limiter.pause(this.now() + wait);
      call.progress(`${error.code}: the account pauses for ${seconds} s as the API asked.`, wait);
      return;
    }
    call.progress(
      rule.kind === 'poll'
        ? `The API is building this dataset (202); checking again in ${seconds} s.`
        : `${error.code}: retrying in ${seconds} s.`,
      wait,
    );
    await sleep(wait, undefined, { signal: call.signal }).catch(() => undefined);
    if (call.signal.aborted) throw abortError(call.signal);
  }

  private failure(error: unknown, signal: AbortSignal): ApiError {
    if (signal.aborted) return abortError(signal);
    if (error instanceof ApiError) return error;
    return new ApiError({ code: 'NETWORK_ERROR', status: null, message: 'The request failed before an answer arrived.' });
  }

  private classify(response: RawResponse): ApiError | undefined {
    if (response.status === 200) {
      if (response.bodyInvalid || typeof response.body !== 'object' || response.body === null) {
        return new ApiError({
          code: 'RESPONSE_INVALID',
          status: 200,
          message: 'The API answered 200 with a body that is not valid JSON.',
          hint: 'Retry later; report the request id if it persists.',
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
      const retry = typeof body?.retry_after_seconds === 'number' ? body.retry_after_seconds : response.retryAfterSeconds;
      return new ApiError({
        code: 'NOT_READY',
        status: 202,
        message: 'The API is still building this dataset (on-demand materialization).',
        hint: 'Call again shortly; waiting for it is not charged.',
        retryAfterSeconds: retry,
        requestId: response.requestId ?? null,
      });
    }
    return errorFromResponse(response.status, response.body, response.retryAfterSeconds, response.requestId);
  }
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

/** The caller's signal, plus the call's deadline, as one signal whose reason says which fired. */
function withDeadline(signal: AbortSignal, deadline: number, now: () => number): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new ApiError({
          code: 'DEADLINE_EXCEEDED',
          status: null,
          message: 'The call ran out of time before the API answered.',
          hint: 'Retry; if it keeps happening, ask for less data.',
          recoverable: true,
          retryAfterSeconds: 1,
          local: true,
        }),
      ),
    Math.max(0, deadline - now()),
  );
  timer.unref();
  const onAbort = (): void => {
    clearTimeout(timer);
    controller.abort(new ApiError({ code: 'CANCELLED', status: null, message: 'The call was cancelled by the client.', local: true }));
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  controller.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  return controller.signal;
}

function toResult(operationId: string, response: RawResponse): ApiResult {
  const body = response.body as Record<string, unknown>;
  const upstream = (typeof body['_meta'] === 'object' && body['_meta'] !== null ? body['_meta'] : {}) as Record<string, unknown>;
  const str = (value: unknown, max = 500): string | null => (typeof value === 'string' ? sanitizeText(value, max) : null);
  const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  // Upstream text is data, not instructions: no hidden or reordering characters reach the agent.
  // The spec shows `{data, _meta}` for one endpoint only: any other shape comes back whole, less `_meta`.
  const data = sanitizeDeep('data' in body ? body['data'] : Object.fromEntries(Object.entries(body).filter(([k]) => k !== '_meta')));
  return {
    data,
    meta: knownOnly<ResultMeta>({
      operation_id: operationId,
      request_id: str(upstream['request_id'], 100) ?? response.requestId ?? null,
      cache_hit: false,
      age_seconds: 0,
      data_freshness_seconds: num(upstream['data_freshness_seconds']),
      next_cursor: str(upstream['next_cursor'], 512),
      truncated: upstream['truncated'] === true,
      notice: str(upstream['notice']),
      rate_limit_remaining: response.limits.rateRemaining ?? num(upstream['rate_limit_remaining']),
      quota_remaining: response.limits.quotaRemaining ?? null,
      quota_remaining_pct: num(upstream['quota_remaining_pct']),
      data_source: str(upstream['data_source'], 100),
    }),
  };
}
