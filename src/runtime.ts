/**
 * Composition: configuration → client → dataset registry → server dependencies. In
 * demo mode the simulator runs in this process and the client talks to it over loopback.
 */
import { readFileSync } from 'node:fs';
import { MarketDataClient } from './api/client.js';
import { DATASETS, toolsetOf } from './catalog/index.js';
import { ConfigSchema, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './log.js';
import { DatasetRegistry, defaultCacheDir } from './mcp/registry.js';
import type { ServerDeps } from './mcp/server.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from './simulator/server.js';

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
  const config = loaded.ok ? loaded.config : ConfigSchema.parse({ demo: flags.demo ?? false });
  const log = createLogger(config.logLevel);
  const configProblem = loaded.ok ? undefined : loaded.problems.map((p) => p.message).join('; ');
  if (configProblem)
    log.error(
      { problems: loaded.ok ? [] : loaded.problems },
      'configuration is invalid; data tools will answer CONFIG_INVALID until it is fixed',
    );

  const simulator = config.demo ? await startSimulator({ port: 0, host: '127.0.0.1', ...flags.simulator }) : undefined;
  const baseUrl = simulator?.url ?? config.baseUrl;
  const client = new MarketDataClient({
    config,
    log,
    ...(simulator ? { baseUrl: simulator.url, apiKey: DEMO_KEY } : {}),
    configProblem,
    userAgent: `market-data-mcp/${packageVersion()}`,
  });
  const registry = new DatasetRegistry({
    client,
    log,
    sourceId: baseUrl ?? 'none',
    // The demo's simulator is in-process: nothing worth keeping on disk.
    cacheDir: simulator || !baseUrl ? undefined : (config.cacheDir ?? defaultCacheDir()),
    toolsets: config.toolsets,
    refreshMs: config.catalogRefreshS * 1000,
  });
  const unknownToolsets = (config.toolsets ?? []).filter((t) => !DATASETS.some((d) => toolsetOf(d) === t));
  // A value that is not even shaped like a toolset name may be a key pasted in the wrong place: never echo it.
  const shown = unknownToolsets.map((t) => (/^[a-z][a-z_-]{0,30}$/.test(t) ? t : '[not shown: not a toolset name]'));
  if (unknownToolsets.length > 0) log.warn({ unknownToolsets: shown }, 'unknown toolsets in MARKET_DATA_TOOLSETS / --toolsets');
  if (baseUrl && !configProblem && (config.apiKey || simulator)) await registry.start(flags.registryWaitMs ?? 1500);

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
      await simulator?.close();
    },
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
