/**
 * Composition: configuration → client → dataset registry → server dependencies. In
 * demo mode the simulator runs in this process and the client talks to it over loopback.
 */
import { readFileSync } from 'node:fs';
import { MarketDataClient, type ApiResult } from './api/client.js';
import { InProcessAccountGate } from './api/gate/in-process-gate.js';
import type { SharedAccount } from './api/gate/redis-factory.js';
import { DATASETS, toolsetOf } from './catalog/index.js';
import { loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { DatasetRegistry, defaultCacheDir } from './mcp/registry.js';
import { primeToolInputJsonSchema } from './mcp/input-schema.js';
import type { ServerDeps } from './mcp/server.js';
import { loadPrebuilt } from './prebuilt.js';
import type { RunningSimulator, SimulatorOptions } from './simulator/server.js';

export const DEMO_KEY = 'sim-live-key';

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

export interface RuntimeFlags {
  demo?: boolean | undefined;
  toolsets?: string | undefined;
  hideInaccessible?: boolean | undefined;
  redisUrl?: string | undefined;
  /** Options for the embedded simulator in demo mode (tests shorten its delays). */
  simulator?: SimulatorOptions | undefined;
  /** Wait at most this long for the upstream openapi.json before serving. */
  registryWaitMs?: number | undefined;
}

export interface Runtime {
  config: Config;
  log: Logger;
  client: MarketDataClient;
  registry: DatasetRegistry;
  deps: ServerDeps;
  simulator: RunningSimulator | undefined;
  close(): Promise<void>;
}

export async function createRuntime(env: NodeJS.ProcessEnv, flags: RuntimeFlags = {}): Promise<Runtime> {
  const loaded = loadConfig(env, { demo: flags.demo, toolsets: flags.toolsets, redisUrl: flags.redisUrl });
  const config = loaded.config;
  const log = createLogger(config.logLevel);
  // What the user should fix but that does not stop the server: shown in the log and in api_status.
  const warnings = loaded.warnings.map((w) => w.message);
  for (const warning of loaded.warnings) log.warn({ variable: warning.variable }, warning.message);
  const problems = loaded.ok ? [] : loaded.problems;
  // Demo mode needs neither key nor URL, so a bad one only warns there.
  const configProblem = !config.demo && problems.length > 0 ? problems.map((p) => p.message).join('; ') : undefined;
  if (configProblem) log.error({ problems }, 'configuration is invalid; data tools will answer CONFIG_INVALID until it is fixed');
  else if (problems.length > 0) {
    warnings.push(...problems.map((p) => `${p.message} (ignored in demo mode)`));
    log.warn({ problems }, 'ignored in demo mode');
  }

  // The simulator's module graph (synthetic market, time zones) loads only in demo mode.
  const simulator = config.demo
    ? await (await import('./simulator/server.js')).startSimulator({ port: 0, host: '127.0.0.1', ...flags.simulator })
    : undefined;
  const baseUrl = simulator?.url ?? config.baseUrl;
  const account = await sharedAccount(config, simulator ? DEMO_KEY : config.apiKey, log);
  const client = new MarketDataClient({
    config,
    log,
    ...(simulator ? { baseUrl: simulator.url, apiKey: DEMO_KEY } : {}),
    configProblem,
    userAgent: `market-data-mcp/${packageVersion()}`,
    ...(account ? { gate: account.gate, sharedCache: account.cache } : {}),
  });
  const prebuilt = loadPrebuilt();
  for (const dataset of DATASETS) {
    const schema = prebuilt?.inputSchemas[dataset.operationId];
    if (schema) primeToolInputJsonSchema(dataset, schema);
  }
  const registry = new DatasetRegistry({
    client,
    log,
    sourceId: baseUrl ?? 'none',
    // The demo's simulator is in-process: nothing worth keeping on disk.
    cacheDir: simulator || !baseUrl ? undefined : (config.cacheDir ?? defaultCacheDir()),
    toolsets: config.toolsets,
    refreshMs: config.catalogRefreshS * 1000,
    // With a disk copy the datasets are known: the refresh can wait for a quiet moment, so
    // the HTTP client (undici, ~11 MiB resident) loads neither before the first answer nor
    // while the server idles right after start; a tool call loads it sooner anyway.
    firstRefreshDelayMs: 30_000,
    catalogDocumentSha256: prebuilt?.catalogDocumentSha256,
  });
  const toolsets = checkToolsets(config.toolsets);
  if (toolsets.warning) {
    warnings.push(toolsets.warning);
    log.warn({ unknownToolsets: toolsets.unknown, validToolsets: TOOLSETS }, toolsets.warning);
  }
  // The demo's simulator serves this very catalog: fetching its openapi.json over
  // loopback and importing it again would only repeat work before the first answer.
  const fetchCatalog = simulator ? (flags.simulator?.extraDatasets?.length ?? 0) > 0 : Boolean(config.apiKey);
  if (baseUrl && !configProblem && fetchCatalog) await registry.start(flags.registryWaitMs ?? 1500);
  const noDataTools = registry.datasets().length === 0 ? toolsets.warning : undefined;
  if (noDataTools) log.error({ validToolsets: TOOLSETS }, `no data tools: ${noDataTools}`);

  const hidden = flags.hideInaccessible ? await inaccessible(client, log) : undefined;
  const deps: ServerDeps = {
    client,
    registry,
    log,
    version: packageVersion(),
    resultTokens: config.resultTokens,
    simulated: simulator !== undefined,
    baseUrl,
    keyConfigured: Boolean(config.apiKey) || simulator !== undefined,
    configWarnings: warnings,
    ...(noDataTools ? { noDataTools } : {}),
    ...(hidden ? { hidden } : {}),
  };
  return {
    config,
    log,
    client,
    registry,
    deps,
    simulator,
    async close() {
      registry.stop();
      await client.close();
      await account?.close();
      await simulator?.close();
    },
  };
}

/**
 * With MARKET_DATA_REDIS_URL, the account's gate and second cache tier live on Redis, so
 * every process of the account shares its limits exactly; the in-process gate is the
 * fallback while Redis is unreachable (and until it first answers). The Redis client
 * loads only in this case.
 */
async function sharedAccount(config: Config, apiKey: string | undefined, log: Logger): Promise<SharedAccount<ApiResult> | undefined> {
  if (!config.redisUrl || !apiKey) return undefined;
  const { createSharedAccount } = await import('./api/gate/redis-factory.js');
  const fallback = new InProcessAccountGate();
  // Never waits on Redis: the gate starts on the fallback and logs when it joins Redis
  // (or that Redis does not answer); api_status shows the mode meanwhile.
  return createSharedAccount<ApiResult>({
    redisUrl: config.redisUrl,
    apiKey,
    fallback,
    log,
    cacheMaxBytes: config.redisCacheMb * 1024 * 1024,
  });
}

/** The toolsets of the built-in catalog, in catalog order. */
export const TOOLSETS: readonly string[] = [...new Set(DATASETS.map((d) => toolsetOf(d)))];

/** Unknown toolset names, and the sentence that tells the user the valid ones. */
export function checkToolsets(requested: readonly string[] | undefined): { unknown: string[]; warning: string | undefined } {
  // A value that is not even shaped like a toolset name may be a key pasted in the wrong place: never echo it.
  const unknown = (requested ?? [])
    .filter((t) => !TOOLSETS.includes(t))
    .map((t) => (/^[a-z][a-z_-]{0,30}$/.test(t) ? t : '[not shown: not a toolset name]'));
  if (unknown.length === 0) return { unknown, warning: undefined };
  return {
    unknown,
    warning: `Unknown toolset${unknown.length > 1 ? 's' : ''} ${unknown.map((t) => `"${t}"`).join(', ')} in MARKET_DATA_TOOLSETS or --toolsets. Valid toolsets: ${TOOLSETS.join(', ')}.`,
  };
}

/** Operation ids the key cannot call, from discover (free). Nothing is hidden if discover fails. */
async function inaccessible(client: MarketDataClient, log: Logger): Promise<Set<string>> {
  try {
    const result = await client.meta('/v1/discover', { deadlineMs: 5000 });
    const datasets = (result.data as { datasets?: { operation_id?: unknown; accessible?: unknown }[] }).datasets ?? [];
    return new Set(datasets.filter((d) => d.accessible === false && typeof d.operation_id === 'string').map((d) => String(d.operation_id)));
  } catch (error) {
    log.warn({ err: String(error) }, 'discover failed; showing every tool');
    return new Set();
  }
}
