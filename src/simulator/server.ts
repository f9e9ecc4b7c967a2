/**
 * The simulated Market Data Read API over node:http. Routes and the OpenAPI document come
 * from the catalog; each request passes the service's checks in the order a real gateway
 * would: authentication, limits, faults, scope, validation, availability, data.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  API_ERROR_CODES,
  DATASETS,
  META_ENDPOINTS,
  scopeOf,
  validateRequest,
  type ApiErrorCode,
  type DatasetDefinition,
} from '../catalog/index.js';
import { ADMIN_USER_ID, AccountBook, builtInBook, type SimAccount, type SimKey } from './accounts.js';
import { datasetReply, metaReply, type Reply } from './responses.js';
import { errorEnvelope } from './envelope.js';
import { FaultPlan, type Fault } from './faults.js';
import { AccountLimits, FixedWindowCounter, SPEC_LIMITS, nextQuotaReset, type LimitSettings } from './limits.js';
import { lookupTicker, shiftDate, toEt } from './market.js';

export interface SimulatorOptions {
  port?: number;
  host?: string;
  seed?: number;
  limits?: Partial<LimitSettings>;
  /** How long an on-demand (dataset, ticker) stays 202 after its first request. */
  materializationMs?: number;
  /** Size ceiling above which a 200 becomes RESPONSE_TOO_LARGE. */
  responseCeilingBytes?: number;
  /** Capabilities switched off (SERVICE_DISABLED), e.g. `dealer_heatmap`. */
  disabledCapabilities?: string[];
  /** Datasets registered beyond the catalog: they appear in routes, openapi and discover. */
  extraDatasets?: DatasetDefinition[];
  /** Extra accounts and keys beside the built-in ones. */
  accounts?: SimAccount[];
  keys?: SimKey[];
  adminUserIds?: string[];
  /** Units already used per account id at start. */
  quotaUsed?: Record<string, number>;
  now?: () => number;
}

export interface RequestRecord {
  /** Arrival and answer instants (epoch ms). */
  readonly at: number;
  readonly doneAt: number;
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly operationId: string | undefined;
  readonly accountId: string | undefined;
  readonly status: number;
  readonly code: ApiErrorCode | undefined;
  readonly charged: boolean;
}

const DOCS_PATH = '/docs/errors';

export class SimulatedApi {
  readonly book: AccountBook;
  readonly faults = new FaultPlan();
  readonly requests: RequestRecord[] = [];
  readonly datasets: DatasetDefinition[];
  private readonly limits: LimitSettings;
  private readonly perAccount = new Map<string, AccountLimits>();
  private readonly perIp = new Map<string, FixedWindowCounter>();
  private readonly firstSeen = new Map<string, number>();
  private readonly disabled: Set<string>;
  private readonly adminUserIds: Set<string>;
  private readonly seed: number;
  private readonly materializationMs: number;
  private readonly ceilingBytes: number;
  private readonly now: () => number;
  private serial = 0;
  private inFlightTotal = 0;
  maxInFlightSeen = 0;
  private origin = 'http://127.0.0.1';

  constructor(options: SimulatorOptions = {}) {
    this.datasets = [...DATASETS, ...(options.extraDatasets ?? [])];
    const book = builtInBook(this.datasets);
    this.book = new AccountBook({
      accounts: [...book.accounts, ...(options.accounts ?? [])],
      keys: [...book.keys, ...(options.keys ?? [])],
    });
    this.limits = { ...SPEC_LIMITS, ...options.limits };
    this.disabled = new Set(options.disabledCapabilities ?? []);
    this.adminUserIds = new Set(options.adminUserIds ?? [ADMIN_USER_ID]);
    this.seed = options.seed ?? 7;
    this.materializationMs = options.materializationMs ?? 1500;
    this.ceilingBytes = options.responseCeilingBytes ?? 256 * 1024;
    this.now = options.now ?? Date.now;
    for (const [accountId, used] of Object.entries(options.quotaUsed ?? {})) this.accountLimits(accountId).quota.setUsed(used, this.now());
  }

  setOrigin(origin: string): void {
    this.origin = origin;
  }

  /** A dataset registered upstream after start: it appears in routes, openapi and discover. */
  registerDataset(dataset: DatasetDefinition): void {
    this.datasets.push(dataset);
  }

  setCapability(capability: string, enabled: boolean): void {
    if (enabled) this.disabled.delete(capability);
    else this.disabled.add(capability);
  }

  setQuotaUsed(accountId: string, used: number): void {
    this.accountLimits(accountId).quota.setUsed(used, this.now());
  }

  /** Requests in flight for one account right now, and the most seen at once. */
  inFlight(accountId: string): { now: number; max: number } {
    const limits = this.accountLimits(accountId);
    return { now: limits.inFlight, max: limits.maxInFlightSeen };
  }

  accountLimits(accountId: string): AccountLimits {
    let limits = this.perAccount.get(accountId);
    if (!limits) {
      limits = new AccountLimits(this.limits, this.now());
      this.perAccount.set(accountId, limits);
    }
    return limits;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = `req_${(this.serial += 1).toString(36).padStart(6, '0')}`;
    const url = new URL(req.url ?? '/', this.origin);
    const method = req.method ?? 'GET';
    const route = this.route(url.pathname);
    const operationId = route?.dataset?.operationId ?? route?.meta;
    let account: SimAccount | undefined;
    let counted: AccountLimits | undefined;
    this.inFlightTotal += 1;
    this.maxInFlightSeen = Math.max(this.maxInFlightSeen, this.inFlightTotal);

    const arrivedAt = Date.now();
    const finish = (reply: Reply): void => {
      this.requests.push({
        at: arrivedAt,
        doneAt: Date.now(),
        method,
        path: url.pathname,
        query: url.search,
        operationId,
        accountId: account?.id,
        status: reply.status,
        code: reply.code,
        charged: reply.charged ?? false,
      });
    };
    res.once('close', () => {
      this.inFlightTotal -= 1;
      if (counted) counted.inFlight -= 1;
    });

    const fail = (
      code: ApiErrorCode,
      extra: { message?: string; hint?: string; retryAfterSeconds?: number; status?: number } = {},
    ): Reply => {
      const envelope = errorEnvelope({ code, requestId, docsBase: `${this.origin}${DOCS_PATH}`, ...extra });
      const status = extra.status ?? API_ERROR_CODES[code].status;
      return {
        status,
        body: envelope,
        code,
        ...(envelope.error.retry_after_seconds === undefined ? {} : { retryAfterSeconds: envelope.error.retry_after_seconds }),
      };
    };

    const reply = await this.pipeline(req, url, method, route, requestId, fail, {
      setAccount: (a) => (account = a),
      setCounted: (l) => (counted = l),
    });
    if (reply === 'reset') {
      finish({ status: 0, body: null });
      req.socket.destroy();
      return;
    }
    finish(reply.reply);
    await this.write(res, reply.reply, requestId, account, req, reply.shape);
  }

  private route(pathname: string): { dataset?: DatasetDefinition; meta?: string; ticker?: string } | undefined {
    const meta = META_ENDPOINTS.find((m) => m.path === pathname);
    if (meta) return { meta: meta.operationId };
    for (const dataset of this.datasets) {
      const [prefix, suffix] = dataset.path.split('{ticker}');
      if (suffix === undefined) {
        if (pathname === dataset.path) return { dataset };
        continue;
      }
      if (
        prefix !== undefined &&
        pathname.startsWith(prefix) &&
        pathname.endsWith(suffix) &&
        pathname.length > prefix.length + suffix.length
      ) {
        const raw = pathname.slice(prefix.length, pathname.length - suffix.length);
        if (raw.includes('/')) continue;
        return { dataset, ticker: safeDecode(raw) };
      }
    }
    return undefined;
  }

  private async pipeline(
    req: IncomingMessage,
    url: URL,
    method: string,
    route: ReturnType<SimulatedApi['route']>,
    requestId: string,
    fail: (code: ApiErrorCode, extra?: { message?: string; hint?: string; retryAfterSeconds?: number; status?: number }) => Reply,
    track: { setAccount: (a: SimAccount) => void; setCounted: (l: AccountLimits) => void },
  ): Promise<'reset' | { reply: Reply; shape?: Fault }> {
    const now = this.now();
    const header = req.headers.authorization;
    if (!header) return { reply: fail('AUTH_MISSING', { hint: 'Send Authorization: Bearer <API_KEY>.' }) };
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const key = match?.[1] ? this.book.key(match[1]) : undefined;
    if (!key || key.revoked) return { reply: fail('AUTH_INVALID', { hint: 'Check the key, or create a new one on the account page.' }) };
    const account = this.book.account(key.accountId);
    if (!account) return { reply: fail('AUTH_INVALID') };
    track.setAccount(account);
    if (account.subscription === 'lapsed')
      return { reply: fail('AUTH_PAUSED', { hint: 'Restore the subscription; the same key resumes.' }) };

    const ip = req.socket.remoteAddress ?? 'unknown';
    let ipWindow = this.perIp.get(ip);
    if (!ipWindow) this.perIp.set(ip, (ipWindow = new FixedWindowCounter(this.limits.perIpPerWindow, this.limits.windowMs)));
    if (!ipWindow.tryTake(now)) {
      return {
        reply: fail('RATE_LIMITED', {
          message: 'Too many requests from this IP in this minute.',
          retryAfterSeconds: secondsUntil(ipWindow.state(now).resetAtMs, now),
        }),
      };
    }
    const limits = this.accountLimits(account.id);
    if (!limits.rate.tryTake(now)) {
      return {
        reply: fail('RATE_LIMITED', {
          hint: `Wait for the window to reset; the account allows ${this.limits.perWindow} requests a window.`,
          retryAfterSeconds: secondsUntil(limits.rate.state(now).resetAtMs, now),
        }),
      };
    }
    limits.inFlight += 1;
    track.setCounted(limits);
    limits.maxInFlightSeen = Math.max(limits.maxInFlightSeen, limits.inFlight);
    if (limits.inFlight > this.limits.inFlight) {
      limits.refusedInFlight(now);
      return {
        reply: fail('IN_FLIGHT_EXCEEDED', {
          hint: `At most ${this.limits.inFlight} requests in flight per account.`,
          retryAfterSeconds: 1,
        }),
      };
    }

    if (method !== 'GET')
      return { reply: fail('NOT_FOUND', { message: `${method} is not served: the API is read-only.`, hint: 'Use GET.' }) };
    if (!route) return { reply: fail('NOT_FOUND', { hint: 'See /v1/openapi.json for the catalogue.' }) };
    if (route.meta)
      return {
        reply: metaReply(
          route.meta,
          {
            datasets: this.datasets,
            disabled: this.disabled,
            adminUserIds: this.adminUserIds,
            perWindow: this.limits.perWindow,
            inFlight: this.limits.inFlight,
          },
          key,
          account,
          limits,
          now,
        ),
      };
    const dataset = route.dataset;
    if (!dataset) return { reply: fail('NOT_FOUND') };

    if (limits.quota.remaining(now) <= 0) {
      const resetAt = limits.quota.resetAtMs(now);
      return {
        reply: fail('QUOTA_EXHAUSTED', {
          hint: `The quota resets at ${new Date(resetAt).toISOString()}.`,
          retryAfterSeconds: secondsUntil(resetAt, now),
        }),
      };
    }
    const circuit = this.faults.circuitRetryAfter(now);
    if (circuit !== undefined) return { reply: fail('CIRCUIT_OPEN', { retryAfterSeconds: circuit }) };
    if (this.faults.latencyMs > 0) await delay(this.faults.latencyMs);
    const fault = this.faults.take();
    if (fault?.kind === 'reset') return 'reset';
    if (fault?.kind === 'error') {
      return {
        reply: fail(fault.code, {
          ...(fault.status === undefined ? {} : { status: fault.status }),
          ...(fault.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: fault.retryAfterSeconds }),
          ...(fault.hint === undefined ? {} : { hint: fault.hint }),
        }),
      };
    }
    if (fault?.kind === 'raw') return { reply: { status: fault.status, body: fault.body }, shape: fault };

    if (!key.scopes.includes(scopeOf(dataset))) {
      return {
        reply: fail('SCOPE_INSUFFICIENT', {
          message: `This key lacks the scope ${scopeOf(dataset)}.`,
          hint: 'GET /v1/discover lists the key access_scope.',
        }),
      };
    }
    if (dataset.adminOnly && !this.adminUserIds.has(account.userId)) {
      return {
        reply: fail('SCOPE_INSUFFICIENT', {
          message: 'This endpoint is limited to configured administrator user ids.',
          hint: 'Not available to this account at present.',
        }),
      };
    }
    if (dataset.capability && this.disabled.has(dataset.capability)) {
      return {
        reply: fail('SERVICE_DISABLED', {
          message: `The ${dataset.capability} capability is disabled for now.`,
          hint: 'Degrade gracefully and retry at low frequency.',
        }),
      };
    }

    const rawQuery: Record<string, string> = {};
    for (const [name, value] of url.searchParams) {
      if (Object.hasOwn(rawQuery, name))
        return { reply: fail('VALIDATION_ERROR', { message: `Parameter "${name}" is repeated.`, hint: 'Send each parameter once.' }) };
      rawQuery[name] = value;
    }
    const checked = validateRequest(dataset, route.ticker, rawQuery);
    if (!checked.ok) return { reply: fail(checked.refusal.code, { message: checked.refusal.message, hint: checked.refusal.hint }) };

    const entry = checked.ticker === undefined ? undefined : lookupTicker(checked.ticker);
    if (checked.ticker !== undefined) {
      if (entry?.isIndex && dataset.indexesSupported === false) {
        return {
          reply: fail('INDEX_UNSUPPORTED', {
            message: `${checked.ticker} is an index; this endpoint serves single names and ETFs only.`,
            hint: 'Use a supported symbol (for SPX, try SPY).',
          }),
        };
      }
      if (!entry)
        return {
          reply: fail('NOT_FOUND', {
            message: `${checked.ticker} is not covered by the service.`,
            hint: 'Do not retry; check the symbol.',
          }),
        };
    }
    const from = checked.query['from'];
    if (dataset.retentionDays !== undefined && typeof from === 'string') {
      const oldest = shiftDate(toEt(now).date, -dataset.retentionDays);
      if (from < oldest)
        return {
          reply: fail('RANGE_TOO_DEEP', {
            message: `History before ${oldest} is outside the ${dataset.retentionDays}-day retention window.`,
            hint: `Move "from" to ${oldest} or later.`,
          }),
        };
    }
    if (dataset.onDemand && this.materializationMs > 0) {
      const readiness = `${dataset.operationId}|${checked.ticker ?? ''}|${JSON.stringify(checked.query)}`;
      const first = this.firstSeen.get(readiness) ?? now;
      this.firstSeen.set(readiness, first);
      const readyIn = first + this.materializationMs - now;
      if (readyIn > 0) {
        const retry = Math.max(1, Math.ceil(readyIn / 1000));
        return {
          reply: {
            status: 202,
            body: { status: 'materializing', request_id: requestId, retry_after_seconds: retry },
            retryAfterSeconds: retry,
          },
        };
      }
    }

    return {
      reply: datasetReply(
        { seed: this.seed, ceilingBytes: this.ceilingBytes },
        dataset,
        entry,
        checked.query,
        requestId,
        limits,
        now,
        fail,
      ),
      ...(fault ? { shape: fault } : {}),
    };
  }

  private async write(
    res: ServerResponse,
    reply: Reply,
    requestId: string,
    account: SimAccount | undefined,
    req: IncomingMessage,
    shape?: Fault,
  ): Promise<void> {
    const now = this.now();
    // Date from the simulator's own clock, so tests can give it a skewed one.
    const headers: Record<string, string> = {
      Date: new Date(now).toUTCString(),
      'X-Request-Id': requestId,
      ...this.limitHeaders(account, req, now),
    };
    if (reply.retryAfterSeconds !== undefined && (reply.status === 429 || reply.status === 202 || reply.status === 503))
      headers['Retry-After'] = String(reply.retryAfterSeconds);
    if (shape?.kind === 'raw') {
      res.writeHead(reply.status, { ...headers, 'Content-Type': shape.contentType, 'Content-Length': Buffer.byteLength(shape.body) });
      res.end(shape.body);
      return;
    }
    let text = JSON.stringify(reply.body);
    if (shape?.kind === 'malformed') text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    if (shape?.kind === 'oversize') text = JSON.stringify({ ...(reply.body as object), padding: 'x'.repeat(shape.bytes) });
    headers['Content-Type'] = 'application/json; charset=utf-8';
    if (shape?.kind === 'slow-drip') {
      res.writeHead(reply.status, headers);
      const chunks = shape.chunks ?? 20;
      const size = Math.ceil(text.length / chunks);
      for (let i = 0; i < text.length && !res.destroyed; i += size) {
        res.write(text.slice(i, i + size));
        await delay(shape.chunkDelayMs);
      }
      res.end();
      return;
    }
    headers['Content-Length'] = String(Buffer.byteLength(text));
    res.writeHead(reply.status, headers);
    res.end(text);
  }

  private limitHeaders(account: SimAccount | undefined, req: IncomingMessage, now: number): Record<string, string> {
    const window = account
      ? this.accountLimits(account.id).rate.state(now)
      : (
          this.perIp.get(req.socket.remoteAddress ?? 'unknown') ?? new FixedWindowCounter(this.limits.perIpPerWindow, this.limits.windowMs)
        ).state(now);
    const quota = account ? this.accountLimits(account.id).quota : undefined;
    return {
      'X-RateLimit-Limit': String(window.limit),
      'X-RateLimit-Remaining': String(window.remaining),
      'X-RateLimit-Reset': String(Math.ceil(window.resetAtMs / 1000)),
      'X-Quota-Limit': String(this.limits.monthlyQuota),
      'X-Quota-Remaining': String(quota ? quota.remaining(now) : this.limits.monthlyQuota),
      'X-Quota-Reset-At': new Date(quota ? quota.resetAtMs(now) : nextQuotaReset(now, this.limits.quotaPeriodMs)).toISOString(),
    };
  }
}

function secondsUntil(instant: number, now: number): number {
  return Math.max(1, Math.ceil((instant - now) / 1000));
}

function safeDecode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface RunningSimulator {
  /** Base URL, e.g. http://127.0.0.1:43121 */
  readonly url: string;
  readonly api: SimulatedApi;
  close(): Promise<void>;
}

/** Starts the simulator on `host:port` (port 0 picks a free one). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const api = new SimulatedApi(options);
  const server = createServer((req, res) => {
    api.handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(errorEnvelope({ code: 'INTERNAL_ERROR', requestId: null, docsBase: DOCS_PATH })));
    });
  });
  server.keepAliveTimeout = 5_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  api.setOrigin(url);
  return {
    url,
    api,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
