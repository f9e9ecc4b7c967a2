/**
 * The one client every tool call goes through. It refuses what it can decide locally
 * (missing config, latched quota, remembered SERVICE_DISABLED), answers from the cache,
 * shares identical requests, and otherwise sends through the account gate, retrying by
 * the policy table within the call's deadline and one retry budget per call.
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import { missingForData, type Config } from '../config/config.js';
import { heapBeforeLoad } from '../heap-policy.js';
import type { Logger } from '../log.js';
import { redactEverywhere } from '../secrets.js';
import { CACHE_MAX_ENTRY_BYTES, isErrorEnvelope, requestKey, ResponseCache } from './cache.js';
import { abortError, apiError } from './errors.js';
import type { AccountGate, GateView } from './gate/account-gate.js';
import type { SharedCacheTier } from '../redis/cache.js';
import { systemClock } from './gate/clock.js';
import { InProcessAccountGate } from './gate/in-process-gate.js';
import { buildPath, datasetTarget, metaTarget, type RequestTarget } from './request-target.js';
import { driveRetries } from './retry-driver.js';
import { SharedRequests, type Flight } from './shared-request.js';
import { HttpTransport } from './transport.js';
import { deadlineExceeded } from './deadline-error.js';
import { followPaging, OUT_OF_REACH, queryAt, type NextPage } from './next-page.js';
import { callSignal } from './call-signal.js';
import { answeredLongerThan, apiResultSchema, readAnswer, toResult, transportFailure, type ApiResult } from './upstream-answer.js';
import type { CallContext } from './call-context.js';
import { DiscoverMemory } from './discover-memory.js';
import { FieldsSeen } from './fields-seen.js';
import type { ResultMeta } from './result-meta.js';
import { rowsIn } from './payload-parts.js';
import { datasetQuery, withValues, type DatasetQuery } from './dataset-query.js';

export type { ApiResult };

/** One page of a dataset call as a request (MarketDataClient.pageOf): read, forgotten and timed in the cache by the one target. */
export interface DatasetPage {
  /** The query the page is asked with, its position placed (the call's own roles, no values, for a URL the upstream issued). */
  readonly query: DatasetQuery;
  /** The page: a token, URL, page number or offset; undefined for the first. */
  readonly at: NextPage | undefined;
  readonly target: RequestTarget;
}

export interface ProgressEvent {
  /** What the call waits for, in words an agent or a person can read. */
  message: string;
  waitMs: number;
}

export interface CallOptions {
  /**
   * The call this request is made for: it ends the request when it is cancelled, and the
   * account gate reads its caller and writes its cost. Absent for the server's own requests
   * (the catalog's refresh, discover at start).
   */
  call?: CallContext | undefined;
  /** Overrides the configured per-request deadline. */
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
  /** What discover last told this key (the MCP side asks again at most once a minute). */
  readonly discovered = new DiscoverMemory();
  /** Row field names this key's answers have shown. */
  readonly fieldsSeen = new FieldsSeen();
  private readonly transport: HttpTransport | undefined;
  private readonly cache: ResponseCache<ApiResult>;
  private readonly shared = new SharedRequests<ApiResult>();
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly configProblem: string | undefined;
  private readonly pageRows = new Map<string, number>();
  private readonly pageRowsListeners = new Set<(operationId: string) => void>();

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
   * The page `at` of a dataset call (the first page when undefined) as a request, its target
   * worked out once: a token, page number or offset under the parameter the dataset's document
   * gives it, or a URL the upstream issued for the same request. Nothing the document does not
   * list is added. `query` must already be validated against the catalog.
   */
  pageOf(query: DatasetQuery, at?: NextPage): DatasetPage {
    if (at === undefined) return { query, at, target: datasetTarget(query) };
    const asked = queryAt(query, at);
    if (asked) return { query: asked, at, target: datasetTarget(asked) };
    const given = at.kind === 'url' ? this.pageUrlTarget(query, at.url) : undefined;
    if (!given) {
      throw apiError('VALIDATION_ERROR', {
        message: 'The cursor names a page this dataset can no longer ask for (its document changed since).',
        hint: 'Drop cursor and start again from the first page.',
        local: true,
      });
    }
    return { query: withValues(query, {}), at, target: given };
  }

  /** A page of a dataset call, read; its meta names the next page in a form this dataset can ask for (next-page.ts). */
  async readPage(page: DatasetPage, options: CallOptions = {}): Promise<ApiResult> {
    heapBeforeLoad();
    const result = this.followed(page, await this.request(page.target, options));
    // A page whose size we asked says nothing of the upstream's own; nor does one at a URL the upstream issued.
    const { roles, values } = page.query;
    const sized = roles.pageSize !== undefined && values[roles.pageSize] !== undefined;
    if (!sized && page.at?.kind !== 'url') this.notePage(page.query.dataset.operationId, result);
    return result;
  }

  /** The page `at` of a dataset call (the first page when undefined), read: pageOf, then readPage. */
  async datasetAt(query: DatasetQuery, at: NextPage | undefined, options: CallOptions = {}): Promise<ApiResult> {
    return this.readPage(this.pageOf(query, at), options);
  }

  /** A dataset call's first page, for a caller that reads one page and plans nothing else (its roles worked out here). */
  dataset(dataset: DatasetDefinition, ticker: string | undefined, values: QueryValues, options: CallOptions = {}): Promise<ApiResult> {
    return this.datasetAt(datasetQuery(dataset, ticker, values), undefined, options);
  }

  /**
   * Drops this process's cached answer of a page read: a result the MCP layer could not
   * shape (a bug of ours) must not be served again as if it were good.
   */
  forget(page: DatasetPage): void {
    this.cache.delete(requestKey(buildPath(page.target), page.target.query));
  }

  /** Milliseconds the page is still answered from this process's cache (0: it would be sent). */
  cachedForMs(page: DatasetPage): number {
    return this.cache.remainingMs(requestKey(buildPath(page.target), page.target.query));
  }

  /** A next-page URL as a request: checked again to be the dataset's own path on the base origin. */
  private pageUrlTarget(query: DatasetQuery, url: string): RequestTarget | undefined {
    const base = datasetTarget(withValues(query, {}));
    const same = this.transport?.sameRequest(url, buildPath(base));
    if (same === undefined) return undefined;
    const search = new URL(same, 'http://request.invalid').searchParams;
    return { ...base, query: Object.fromEntries(search) };
  }

  /** The answer with the next page this dataset can follow, its cut or its unknown end (next-page.ts); a new object, the cached one untouched. */
  private followed(page: DatasetPage, result: ApiResult): ApiResult {
    const path = buildPath(page.target);
    const paging = followPaging(page.query, result.meta.paging, (url) => this.transport?.sameRequest(url, path), page.at);
    const meta = { ...result.meta };
    delete meta.next_page;
    delete meta.end_unknown;
    delete meta.out_of_reach;
    if (paging.next_page) meta.next_page = paging.next_page;
    if (paging.end_unknown) meta.end_unknown = true;
    if (paging.cut) {
      meta.truncated = true;
      delete meta.content_cut;
      // Why the rest is out of reach (the cached answer is untouched): the answer's more_rows says it.
      if (paging.why) meta.out_of_reach = OUT_OF_REACH[paging.why];
    }
    return { data: result.data, meta };
  }

  /**
   * Rows an upstream page of this dataset holds, as seen on a page it continued after (a page
   * with a next page the upstream named is a full one): what a call spends in requests
   * depends on it, and an upstream that takes no page size tells it only by answering
   * (src/mcp/tools/request-costs.ts).
   */
  pageRowsSeen(operationId: string): number | undefined {
    return this.pageRows.get(operationId);
  }

  /** Called once each time a dataset's page size is first seen or changes. */
  onPageRowsSeen(listener: (operationId: string) => void): () => void {
    this.pageRowsListeners.add(listener);
    return () => this.pageRowsListeners.delete(listener);
  }

  private notePage(operationId: string, result: ApiResult): void {
    // A next page guessed where the upstream said nothing of an end does not make this page a full one.
    if (result.meta.next_page === undefined || result.meta.end_unknown === true) return;
    const rows = rowsIn(result.data)?.length ?? 0;
    if (rows === 0 || this.pageRows.get(operationId) === rows) return;
    this.pageRows.set(operationId, rows);
    for (const listener of this.pageRowsListeners) listener(operationId);
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
      throw apiError('CONFIG_INVALID', { hint: this.configProblem, local: true });
    }
    const disabledFor = await this.gate.disabledFor(target.capability);
    if (disabledFor !== undefined) {
      throw apiError('SERVICE_DISABLED', {
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
      return { data: cached.value.data, meta: await this.limitsNow({ ...cached.value.meta, cache_hit: true, age_seconds: age }) };
    }
    const deadlineMs = options.deadlineMs ?? this.deps.config.deadlineMs;
    // A call that ends (cancelled, its --http caller gone, the server stopping) leaves at once, queued or in flight.
    const call = options.call;
    const bounded = callSignal([call?.signal], deadlineMs);
    try {
      return await this.requestWithin(target, key, transport, bounded.signal, deadlineMs, call, options);
    } finally {
      bounded.done();
    }
  }

  /** `request` once the call has its signal: the cache tiers, then one shared upstream request. */
  private async requestWithin(
    target: RequestTarget,
    key: string,
    transport: HttpTransport,
    signal: AbortSignal,
    deadlineMs: number,
    call: CallContext | undefined,
    options: CallOptions,
  ): Promise<ApiResult> {
    const join = (): Promise<ApiResult> =>
      // An identical request under way is joined; one this call starts is sent for it (its caller, its cost).
      this.shared.join(key, (flight) => this.send(transport, target, key, flight, call), {
        signal,
        deadline: this.now() + deadlineMs,
        onProgress: options.onProgress,
        leaveError: (charged) => (call?.signal.aborted ? abortError(call.signal) : deadlineExceeded(charged)),
      });
    const tier = target.cacheTtlMs > 0 ? this.deps.sharedCache : undefined;
    // An answer that can no longer change is kept past its dataset's time-to-live, in both tiers.
    const ttlFor = (value: ApiResult): number => Math.max(target.cacheTtlMs, target.keepFor?.(value.data, this.now()) ?? 0);
    let result: ApiResult;
    if (tier) {
      // An error envelope under a 200 is never data (the LRU refuses it too).
      const shared = await tier.readThrough(key, target.cacheTtlMs, join, {
        signal,
        now: this.now,
        cacheable: (r) => !isErrorEnvelope(r),
        ttlFor,
      });
      const age = Math.max(0, Math.round((this.now() - shared.storedAt) / 1000));
      // What another process left in Redis is read back from JSON: used only when it has a result's shape.
      const peers = shared.fromPeer ? apiResultSchema.safeParse(shared.value) : undefined;
      if (peers?.success === false) this.deps.log.debug({ op: target.operationId }, 'shared cache entry not a result; sent instead');
      result =
        peers === undefined
          ? shared.value
          : peers.success
            ? { data: peers.data.data, meta: await this.limitsNow({ ...peers.data.meta, cache_hit: true, age_seconds: age }) }
            : await join();
      this.deps.log.debug({ op: target.operationId, shared_cache_hit: shared.fromPeer, age_seconds: age }, 'shared cache');
    } else result = await join();
    // A page whose body alone is over an entry's cap is not serialized again only to be refused (megabytes in one go).
    if (target.cacheTtlMs > 0 && !answeredLongerThan(result, CACHE_MAX_ENTRY_BYTES)) this.cache.set(key, result, ttlFor(result));
    return result;
  }

  /**
   * A cached answer's meta with the quota and rate left as the account gate knows them now:
   * the values stored with it were those of the request that fetched it, minutes or hours
   * ago (an agent read a quota its other calls had long since spent). What the gate does not
   * know (no answer with limit headers yet) stays as stored.
   */
  private async limitsNow(meta: ResultMeta): Promise<ResultMeta> {
    const view = await this.gate.view().catch(() => undefined);
    if (!view) return meta;
    const now = { ...meta };
    if (view.quota_remaining !== null) {
      now.quota_remaining = view.quota_remaining;
      if (view.quota_limit) now.quota_remaining_pct = Math.round((view.quota_remaining / view.quota_limit) * 10000) / 100;
      else delete now.quota_remaining_pct;
    }
    if (view.rate_remaining !== null) now.rate_limit_remaining = view.rate_remaining;
    return now;
  }

  /** One upstream request, its retries driven by the policy table (retry-driver.ts). */
  private send(
    transport: HttpTransport,
    target: RequestTarget,
    pathAndQuery: string,
    flight: Flight,
    call: CallContext | undefined,
  ): Promise<ApiResult> {
    return driveRetries<ApiResult>(
      { gate: this.gate, now: this.now, random: this.random, sleep: this.sleep },
      {
        flight,
        context: call,
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
          return {
            ok: true,
            value: await toResult(target.operationId, answer.answered, {
              clean: target.readerCleans !== true,
              tickerField: target.tickerField,
            }),
            outcome,
          };
        },
      },
    );
  }
}
