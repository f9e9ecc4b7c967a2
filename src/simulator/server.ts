/**
 * The simulated Market Data Read API: its state (accounts, limits, faults, datasets) and
 * the node:http server around the hono app (app.ts) that routes the catalog's paths.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { DATASETS, type ApiErrorCode, type DatasetDefinition } from '../catalog/index.js';
import { ADMIN_USER_ID, AccountBook, builtInBook, type SimAccount, type SimKey } from './accounts.js';
import type { SimEnv } from './api-error.js';
import { buildApp, DOCS_PATH } from './app.js';
import { dialectFromEnv, dialectNamed, type Dialect } from './dialect.js';
import { errorEnvelope } from './envelope.js';
import { FaultPlan } from './faults.js';
import { isCatalogOperation } from './generators/index.js';
import { AccountLimits, FixedWindowCounter, nextQuotaReset, type LimitSettings } from './limits.js';
import { undeclaredFilters } from './query-filters.js';
import type { ServiceView } from './responses.js';
import { SPEC_LIMITS } from '../catalog/index.js';

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
  /**
   * Datasets registered beyond the catalog: they appear in routes, openapi and discover. One on
   * a catalog path replaces that dataset (an upstream that states its parameters otherwise).
   */
  extraDatasets?: DatasetDefinition[];
  /** Extra accounts and keys beside the built-in ones. */
  accounts?: SimAccount[];
  keys?: SimKey[];
  adminUserIds?: string[];
  /** Units already used per account id at start. */
  quotaUsed?: Record<string, number>;
  now?: () => number;
  /** Which reading of the spec's open points to serve (dialect.ts); default MARKET_DATA_SIM_DIALECT, else the spec's own. */
  dialect?: string;
  /** Where an error's `docs_url` points (`#CODE` appended); default this simulator's own origin, gone when it stops. */
  docsUrl?: string;
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

export class SimulatedApi {
  readonly book: AccountBook;
  readonly faults = new FaultPlan();
  readonly requests: RequestRecord[] = [];
  readonly datasets: DatasetDefinition[];
  readonly limitSettings: LimitSettings;
  readonly perIp = new Map<string, FixedWindowCounter>();
  /** First request instant per on-demand (dataset, ticker, query), for the 202 window. */
  readonly firstSeen = new Map<string, number>();
  readonly disabled: Set<string>;
  readonly adminUserIds: Set<string>;
  readonly seed: number;
  readonly materializationMs: number;
  readonly now: () => number;
  readonly dialect: Dialect;
  readonly docsUrl: string | undefined;
  maxInFlightSeen = 0;
  /** While true, `/v1/openapi.json` answers READ_MODEL_UNAVAILABLE: a refresh then has no evidence of what was retired. */
  documentOutage = false;
  origin = 'http://127.0.0.1';
  private readonly ceilingBytes: number;
  private readonly perAccount = new Map<string, AccountLimits>();
  private serial = 0;
  private inFlightTotal = 0;
  private app: Hono<SimEnv>;

  constructor(options: SimulatorOptions = {}) {
    // A catalog dataset without its generator would serve generic rows: refuse to start instead.
    const missing = DATASETS.filter((d) => !isCatalogOperation(d.operationId)).map((d) => d.operationId);
    if (missing.length > 0)
      throw new Error(`No simulator generator for catalog dataset(s) ${missing.join(', ')} (src/simulator/generators).`);
    // A catalog filter with no row field to read would answer unfiltered or empty: refuse to start.
    const undeclared = undeclaredFilters(DATASETS);
    if (undeclared.length > 0)
      throw new Error(`No row field declared for catalog filter(s) ${undeclared.join(', ')} (src/simulator/query-filters.ts).`);
    const extra = options.extraDatasets ?? [];
    const replaced = new Set(extra.map((d) => d.path));
    this.datasets = [...DATASETS.filter((d) => !replaced.has(d.path)), ...extra];
    const book = builtInBook(this.datasets);
    this.book = new AccountBook({
      accounts: [...book.accounts, ...(options.accounts ?? [])],
      keys: [...book.keys, ...(options.keys ?? [])],
    });
    this.limitSettings = { ...SPEC_LIMITS, ...options.limits };
    this.disabled = new Set(options.disabledCapabilities ?? []);
    this.adminUserIds = new Set(options.adminUserIds ?? [ADMIN_USER_ID]);
    this.seed = options.seed ?? 7;
    this.materializationMs = options.materializationMs ?? 1500;
    this.ceilingBytes = options.responseCeilingBytes ?? 256 * 1024;
    this.now = options.now ?? Date.now;
    this.dialect = options.dialect === undefined ? dialectFromEnv() : dialectNamed(options.dialect);
    this.docsUrl = options.docsUrl;
    for (const [accountId, used] of Object.entries(options.quotaUsed ?? {})) this.accountLimits(accountId).quota.setUsed(used, this.now());
    this.app = buildApp(this, this.datasets);
  }

  setOrigin(origin: string): void {
    this.origin = origin;
  }

  /**
   * A dataset registered upstream after start: it appears in routes, openapi and discover (with
   * generic rows), in the dialect's forms. One on a path already served replaces it (its
   * parameters changed upstream).
   */
  registerDataset(dataset: DatasetDefinition): void {
    const at = this.datasets.findIndex((d) => d.path === dataset.path);
    if (at >= 0) this.datasets.splice(at, 1, dataset);
    else this.datasets.push(dataset);
    this.app = buildApp(this, this.datasets);
  }

  /** A dataset the upstream no longer serves: gone from routes, openapi and discover. */
  retireDataset(path: string): void {
    const at = this.datasets.findIndex((d) => d.path === path);
    if (at >= 0) this.datasets.splice(at, 1);
    this.app = buildApp(this, this.datasets);
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
      limits = new AccountLimits(this.limitSettings, this.now());
      this.perAccount.set(accountId, limits);
    }
    return limits;
  }

  /** The hono app's fetch: what the node server hands every request to. */
  fetch(request: Request, env: SimEnv['Bindings']): Response | Promise<Response> {
    return this.app.fetch(request, env);
  }

  nextRequestId(): string {
    return `req_${(this.serial += 1).toString(36).padStart(6, '0')}`;
  }

  record(entry: RequestRecord): void {
    this.requests.push(entry);
  }

  trackInFlight(outgoing: SimEnv['Bindings']['outgoing']): void {
    this.inFlightTotal += 1;
    this.maxInFlightSeen = Math.max(this.maxInFlightSeen, this.inFlightTotal);
    outgoing.once('close', () => {
      this.inFlightTotal -= 1;
    });
  }

  serviceView(): ServiceView {
    return {
      datasets: this.datasets,
      disabled: this.disabled,
      adminUserIds: this.adminUserIds,
      perWindow: this.limitSettings.perWindow,
      inFlight: this.limitSettings.inFlight,
    };
  }

  dataSettings(): { seed: number; ceilingBytes: number } {
    return { seed: this.seed, ceilingBytes: this.ceilingBytes };
  }

  /** Date from the simulator's own clock (tests give it a skewed one), the request id, the limit headers. */
  commonHeaders(account: SimAccount | undefined, ip: string, requestId: string): Record<string, string> {
    const now = this.now();
    const window = account
      ? this.accountLimits(account.id).rate.state(now)
      : (this.perIp.get(ip) ?? new FixedWindowCounter(this.limitSettings.perIpPerWindow, this.limitSettings.windowMs)).state(now);
    const quota = account ? this.accountLimits(account.id).quota : undefined;
    const always = { Date: new Date(now).toUTCString(), 'X-Request-Id': requestId };
    if (!this.dialect.traits.rateHeaders) return always;
    return {
      ...always,
      'X-RateLimit-Limit': String(window.limit),
      'X-RateLimit-Remaining': String(window.remaining),
      'X-RateLimit-Reset': String(Math.ceil(window.resetAtMs / 1000)),
      'X-Quota-Limit': String(this.limitSettings.monthlyQuota),
      'X-Quota-Remaining': String(quota ? quota.remaining(now) : this.limitSettings.monthlyQuota),
      'X-Quota-Reset-At': new Date(quota ? quota.resetAtMs(now) : nextQuotaReset(now, this.limitSettings.quotaPeriodMs)).toISOString(),
    };
  }
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
  const listener = getRequestListener((request, env: SimEnv['Bindings']) => api.fetch(request, env), {
    errorHandler: () =>
      new Response(JSON.stringify(errorEnvelope({ code: 'INTERNAL_ERROR', requestId: null, docsBase: DOCS_PATH })), { status: 500 }),
  });
  const server = createServer((req, res) => void listener(req, res));
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
