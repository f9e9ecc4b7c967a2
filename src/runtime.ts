/**
 * Composition: configuration → client → dataset registry → server dependencies. In
 * demo mode the simulator runs in this process and the client talks to it over loopback.
 */
import { readFileSync } from 'node:fs';
import { MarketDataClient, type ApiResult } from './api/client.js';
import type { AccountGate } from './api/gate/account-gate.js';
import { InProcessAccountGate } from './api/gate/in-process-gate.js';
import type { SharedAccount } from './redis/factory.js';
import { DATASETS, inaccessibleOperations, TOOLSETS as CATALOG_TOOLSETS, toolsetOf, type Toolset } from './catalog/index.js';
import type { Config } from './config/config.js';
import { coreSettings, ignoredInDemo } from './config/core-settings.js';
import type { DevelopmentSettings } from './config/development.js';
import { ENV } from './config/env-vars.js';
import { ApiError } from './api/errors.js';
import { wrongBaseUrl } from './api/wrong-base-url.js';
import { createLogger, type Logger } from './log.js';
import { importRecordFile, memoisedImport } from './registry/import-memo.js';
import { rememberDiscover } from './mcp/arguments/discover-memory.js';
import { DatasetRegistry } from './registry/dataset-registry.js';
import { primeToolInputJsonSchema } from './mcp/arguments/input-schema.js';
import { primeDatasetParamJson } from './catalog/param-json-memo.js';
import type { ServerDeps } from './mcp/server.js';
import type { ToolMiddleware } from './mcp/tool.js';
import { toolNameOf } from './mcp/tools/dataset-tool.js';
import { STATUS_TOOL } from './mcp/tools/status-tool.js';
import { COMPARE_TOOL, COMPARE_TOOLSET } from './mcp/tools/volatility-compare.js';
import { NAME_TOOL_NAMES, NAME_TOOL_SETS } from './mcp/tools/name-tools.js';
import { selectionWarnings, selectTools, type ToolSelection } from './mcp/tools/selection.js';
import { keyCursorsTo } from './mcp/arguments/cursor.js';
import { PROJECT_README_URL } from './mcp/answers/error-docs.js';
import { loadPrebuilt, type Prebuilt } from './prebuilt.js';
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
  tools?: string | undefined;
  excludeTools?: string | undefined;
  hideInaccessible?: boolean | undefined;
  redisUrl?: string | undefined;
  /** Options for the embedded simulator in demo mode (tests shorten its delays). */
  simulator?: SimulatorOptions | undefined;
  /** Wait at most this long for the upstream openapi.json before serving. */
  registryWaitMs?: number | undefined;
  /** Puts the account gate behind another (metrics, fair shares: src/observe, src/team) for every call; `redis` when the account is shared on it. */
  wrapGate?: ((gate: AccountGate, redis: SharedAccount<ApiResult>['redis']) => AccountGate) | undefined;
  /** What wraps every tool of the runtime's servers (traces: src/observe/tracing.ts). */
  middleware?: ToolMiddleware | undefined;
  /** Run once the runtime has closed (tracing sends the spans it still holds). */
  afterClose?: (() => Promise<void>) | undefined;
}

/** Made once: what the transports serve, never rewritten after (a team's server derives its own deps: src/team/team.ts). */
export interface Runtime {
  readonly config: Config;
  readonly log: Logger;
  readonly client: MarketDataClient;
  readonly registry: DatasetRegistry;
  readonly deps: ServerDeps;
  readonly simulator: RunningSimulator | undefined;
  readonly close: () => Promise<void>;
}

export async function createRuntime(env: NodeJS.ProcessEnv, flags: RuntimeFlags = {}): Promise<Runtime> {
  const { config, development, log, warnings, configProblem } = readSettings(env, flags);
  const simulator = config.demo ? await startDemoSimulator(development, flags) : undefined;
  const baseUrl = simulator?.url ?? config.baseUrl;
  const { client, account } = await connectClient(config, log, simulator, configProblem, flags);
  const prebuilt = loadPrebuilt();
  primePrebuiltSchemas(prebuilt);
  const selection = selectTools(config);
  const registry = await openRegistry({ config, log, client, simulator, baseUrl, configProblem, warnings, selection, prebuilt, flags });
  const noDataTools = checkSelection(config, log, registry, selection, warnings);
  // Discover is asked before the first tool list with --hide-inaccessible, and in demo mode (free, the
  // simulator in process), so that the tools the key cannot call are hidden, or say so (mcp/key-reach.ts).
  const unreachable = flags.hideInaccessible || simulator ? await inaccessible(client, log) : undefined;
  const hidden = flags.hideInaccessible ? unreachable : undefined;
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
    offers: (tool) => selection.offers(tool),
    ...(noDataTools ? { noDataTools } : {}),
    ...(hidden ? { hidden } : {}),
    ...(flags.middleware ? { middleware: flags.middleware } : {}),
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
      await flags.afterClose?.();
    },
  };
}

/** The configuration and what is wrong with it; `warnings` grows later (a wrong base URL found at a refresh) and api_status reads it live. */
interface Settings {
  readonly config: Config;
  readonly development: DevelopmentSettings;
  readonly log: Logger;
  readonly warnings: string[];
  /** Set when the data tools must answer CONFIG_INVALID until it is fixed. */
  readonly configProblem: string | undefined;
}

function readSettings(env: NodeJS.ProcessEnv, flags: RuntimeFlags): Settings {
  const core = coreSettings(env, coreFlags(flags));
  const { config, development, problems } = core;
  const log = createLogger(config.logLevel);
  // What the user should fix but that does not stop the server: shown in the log and in api_status.
  const warnings = core.warnings.map((w) => w.message);
  for (const warning of core.warnings) log.warn({ variable: warning.variable }, warning.message);
  // Demo mode needs neither key nor URL, so a bad one only warns there.
  const configProblem = !config.demo && problems.length > 0 ? problems.map((p) => p.message).join('; ') : undefined;
  if (configProblem) log.error({ problems }, 'configuration is invalid; data tools will answer CONFIG_INVALID until it is fixed');
  else if (problems.length > 0) {
    warnings.push(...problems.map(ignoredInDemo));
    log.warn({ problems }, 'ignored in demo mode');
  }
  return { config, development, log, warnings, configProblem };
}

/** The flags the core settings take (they win over the environment). */
export function coreFlags(flags: RuntimeFlags): Partial<Record<keyof Config, unknown>> {
  return { demo: flags.demo, toolsets: flags.toolsets, tools: flags.tools, excludeTools: flags.excludeTools, redisUrl: flags.redisUrl };
}

/** The simulator's module graph (synthetic market, time zones) loads only in demo mode. */
async function startDemoSimulator(development: DevelopmentSettings, flags: RuntimeFlags): Promise<RunningSimulator> {
  const dialect = development.simDialect;
  const { startSimulator } = await import('./simulator/server.js');
  return startSimulator({
    port: 0,
    host: '127.0.0.1',
    ...(dialect ? { dialect } : {}),
    // The error table of this project's public README: it outlives the loopback port and
    // opens for a remote client too (a file:// path into the install folder did neither).
    docsUrl: PROJECT_README_URL,
    ...flags.simulator,
  });
}

/** The upstream client behind the account's gate: the demo's simulator with its key, or the configured upstream (shared on Redis when set). */
async function connectClient(
  config: Config,
  log: Logger,
  simulator: RunningSimulator | undefined,
  configProblem: string | undefined,
  flags: RuntimeFlags,
): Promise<{ client: MarketDataClient; account: SharedAccount<ApiResult> | undefined }> {
  keyCursorsTo(simulator ? DEMO_KEY : config.apiKey);
  const account = await sharedAccount(config, simulator ? DEMO_KEY : config.apiKey, log, simulator ? undefined : config.cacheDir);
  const gate = flags.wrapGate ? flags.wrapGate(account?.gate ?? new InProcessAccountGate(), account?.redis) : account?.gate;
  const client = new MarketDataClient({
    config,
    log,
    ...(simulator ? { baseUrl: simulator.url, apiKey: DEMO_KEY } : {}),
    configProblem,
    userAgent: `market-data-mcp/${packageVersion()}`,
    ...(gate ? { gate } : {}),
    ...(account ? { sharedCache: account.cache } : {}),
  });
  return { client, account };
}

/** The build's precomputed JSON of the catalog's schemas, so a first tools/list does not convert them again. */
function primePrebuiltSchemas(prebuilt: Prebuilt | undefined): void {
  for (const dataset of DATASETS) {
    const schema = prebuilt?.inputSchemas[dataset.operationId];
    if (schema) primeToolInputJsonSchema(dataset, schema);
    const params = prebuilt?.paramSchemas[dataset.operationId];
    if (params) primeDatasetParamJson(dataset, params);
  }
}

interface RegistryInputs extends Omit<Settings, 'development'> {
  readonly client: MarketDataClient;
  readonly simulator: RunningSimulator | undefined;
  readonly baseUrl: string | undefined;
  readonly selection: ToolSelection;
  readonly prebuilt: Prebuilt | undefined;
  readonly flags: RuntimeFlags;
}

/** The datasets the tools serve: the catalog merged with the upstream's document, waited for at start for at most `registryWaitMs`. */
async function openRegistry(inputs: RegistryInputs): Promise<DatasetRegistry> {
  const { config, log, client, simulator, baseUrl, configProblem, warnings, selection, prebuilt, flags } = inputs;
  // The demo's simulator is in-process: nothing worth keeping on disk.
  const cacheDir = simulator || !baseUrl ? undefined : config.cacheDir;
  // The demo's simulator serves this very catalog: fetching its openapi.json over
  // loopback and importing it again would only repeat work before the first answer.
  // A simulator speaking another dialect publishes other ids and parameters: read them as from any upstream.
  const fetchCatalog = simulator
    ? (flags.simulator?.extraDatasets?.length ?? 0) > 0 || simulator.api.dialect.name !== 'spec'
    : Boolean(config.apiKey);
  const registry = new DatasetRegistry({
    catalogServed: simulator !== undefined && !fetchCatalog,
    client,
    log,
    sourceId: baseUrl ?? 'none',
    cacheDir,
    offers: (dataset) => selection.offers({ name: toolNameOf(dataset), toolset: toolsetOf(dataset) }),
    onUnavailable: (error) => {
      // A base URL that answers as no API would is said once, at start or at the refresh that finds it.
      const why = error instanceof ApiError ? wrongBaseUrl(error, baseUrl, '/v1/openapi.json') : undefined;
      if (why === undefined || warnings.includes(why)) return;
      warnings.push(why);
      log.error({ variable: ENV.baseUrl }, why);
    },
    refreshMs: config.catalogRefreshS * 1000,
    // With a disk copy the datasets are known: the refresh can wait for a quiet moment, so
    // the keep-alive HTTP agent is made neither before the first answer nor
    // while the server idles right after start; a tool call loads it sooner anyway.
    firstRefreshDelayMs: 30_000,
    catalogDocumentSha256: prebuilt?.catalogDocumentSha256,
    buildId: prebuilt?.buildId,
    importDocument: prebuilt?.buildId
      ? memoisedImport({ file: importRecordFile(cacheDir, baseUrl), buildId: prebuilt.buildId, log })
      : undefined,
    reservedToolNames: [STATUS_TOOL, COMPARE_TOOL, ...NAME_TOOL_NAMES],
    toolNameOf: (operationId) => toolNameOf({ operationId }),
  });
  if (baseUrl && !configProblem && fetchCatalog) await registry.start(flags.registryWaitMs ?? 1500);
  return registry;
}

/**
 * Checked once the upstream's datasets are known: a tool it registers is a valid name too.
 * Returns why no data tool is offered, when the selection leaves none.
 */
function checkSelection(
  config: Config,
  log: Logger,
  registry: DatasetRegistry,
  selection: ToolSelection,
  warnings: string[],
): string | undefined {
  const selectionProblems = selectionWarnings(config, {
    toolsets: TOOLSETS,
    tools: [...registry.known().map((d) => toolNameOf(d)), STATUS_TOOL, COMPARE_TOOL, ...NAME_TOOL_NAMES],
  });
  for (const warning of selectionProblems) {
    warnings.push(warning);
    log.warn({ validToolsets: TOOLSETS }, warning);
  }
  const noDataTools = offersNoData(registry, selection) && selectionProblems.length > 0 ? selectionProblems.join(' ') : undefined;
  if (noDataTools) log.error({ validToolsets: TOOLSETS }, `no data tools: ${noDataTools}`);
  return noDataTools;
}

/**
 * With MARKET_DATA_REDIS_URL, the account's gate and second cache tier live on Redis, so
 * every process of the account shares its limits exactly; the in-process gate is the
 * fallback while Redis is unreachable (and until it first answers). The Redis client
 * loads only in this case.
 */
async function sharedAccount(
  config: Config,
  apiKey: string | undefined,
  log: Logger,
  stateDir: string | undefined,
): Promise<SharedAccount<ApiResult> | undefined> {
  if (!config.redisUrl || !apiKey) return undefined;
  const { createSharedAccount } = await import('./redis/factory.js');
  const { teamAccountKeys } = await import('./redis/team-keys.js');
  const { sealFor } = await import('./redis/sealed-values.js');
  const fallback = new InProcessAccountGate();
  // Never waits on Redis: the gate starts on the fallback and logs when it joins Redis
  // (or that Redis does not answer); api_status shows the mode meanwhile.
  return createSharedAccount<ApiResult>({
    redisUrl: config.redisUrl,
    apiKey,
    keys: teamAccountKeys(apiKey, config.accountId),
    seal: sealFor(apiKey),
    fallback,
    log,
    cacheMaxBytes: config.redisCacheMb * 1024 * 1024,
    stateDir,
    expectedProcesses: config.expectedProcesses,
    deadlineMs: config.deadlineMs,
  });
}

/** The toolsets of the built-in catalog, in catalog order. */
export const TOOLSETS: readonly Toolset[] = Object.keys(CATALOG_TOOLSETS) as Toolset[];

/** Neither a dataset's tool nor a tool over several of them is offered: only api_status would be listed. */
function offersNoData(registry: DatasetRegistry, selection: ToolSelection): boolean {
  const severalTools = [{ name: COMPARE_TOOL, toolset: COMPARE_TOOLSET }, ...NAME_TOOL_SETS];
  return registry.datasets().length === 0 && !severalTools.some((tool) => selection.offers(tool));
}

/** Operation ids the key cannot call, from discover (free). Nothing is hidden if discover fails. */
export async function inaccessible(client: MarketDataClient, log: Logger): Promise<Set<string>> {
  try {
    const result = await client.meta('/v1/discover', { deadlineMs: 5000 });
    rememberDiscover(client, result.data);
    return inaccessibleOperations(result.data);
  } catch (error) {
    log.warn({ err: String(error) }, 'discover failed; showing every tool');
    return new Set();
  }
}
