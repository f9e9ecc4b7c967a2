/**
 * The server factory, kept apart from transports: stdio pins one instance, HTTP builds
 * one per request, tests connect in memory. Tools come from the dataset registry.
 */
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/server';
import type { MarketDataClient } from '../api/client.js';
import type { DatasetDefinition } from '../catalog/index.js';
import type { Logger } from '../log.js';
import { linkView, registerViews } from './apps.js';
import { registerDatasetTool, toolNameOf } from './dataset-tool.js';
import { registerPrompts, registerResources } from './guides.js';
import type { CatalogChange, DatasetRegistry } from '../registry/dataset-registry.js';
import { registerStatusTool } from './status-tool.js';
import { guardPrototypeArguments } from './prototype-guard.js';
import { COMPARE_DATASETS, registerVolatilityCompare } from './volatility-compare.js';

export interface ServerDeps {
  client: MarketDataClient;
  registry: DatasetRegistry;
  log: Logger;
  version: string;
  resultTokens: number;
  simulated: boolean;
  baseUrl: string | undefined;
  keyConfigured: boolean;
  /** Why there is no key for this caller, when it is not the server's configuration (a member the key map does not name). */
  noKeyBecause?: string;
  /** Configuration the server ignored or replaced by a default, shown by api_status. */
  configWarnings?: readonly string[];
  /** Why no data tool is offered (e.g. only unknown toolsets), shown in api_status's description. */
  noDataTools?: string;
  /** Operation ids the key may not call, hidden when the user asked for it. */
  hidden?: ReadonlySet<string>;
  /** Called on each new instance before its tools are registered (audit and metrics, src/ops). */
  instrument?: (server: McpServer) => void;
}

const INSTRUCTIONS = [
  'Market data tools: options flow, dealer gamma exposure (GEX), short interest, volatility, institutional, insider, congress, dark-pool and macro datasets.',
  'Each upstream request a call makes costs 1 unit of a shared monthly quota (cached repeats are free): most calls make one, and meta.units says what an answer spent; api_status is free and shows the budget.',
  'On-demand datasets may make a first call wait while the API builds them (not charged).',
  'Tickers are upper case (SPY, BRK.B); dates are ET trading dates (YYYY-MM-DD).',
  'fields=["a","b"] keeps only those fields of each row. Results fit a token budget: meta.truncated means rows were left out of this answer, meta.has_more that more exist; pass meta.next_cursor as cursor (with the ticker) to continue exactly after the last row.',
  'meta.as_of is when the data was current, meta.covers the session or range, meta.data_source live, cache or degraded.',
  'Errors carry a code, a hint and an action: follow them rather than retrying blindly.',
].join(' ');

/**
 * Builds one server instance. With `live`, the tool list follows the registry: datasets
 * added, changed or removed upstream while the server runs are registered, replaced or
 * removed here (each change sends tools/list_changed); `close` stops listening.
 */
/** volatility_compare is offered with the volatility toolset it fans out to. */
function offersCompare(deps: ServerDeps): boolean {
  const offered = (id: string): boolean => !deps.hidden?.has(id) && deps.registry.datasets().some((d) => d.operationId === id);
  return COMPARE_DATASETS.some(offered);
}

/** The tools createServer offers now: one per dataset not hidden, api_status, and volatility_compare with its toolset. */
export function offeredToolCount(deps: ServerDeps): number {
  const datasets = new Set(deps.registry.datasets().map((d) => d.operationId));
  const shown = [...datasets].filter((id) => !deps.hidden?.has(id)).length;
  return shown + 1 + (offersCompare(deps) ? 1 : 0);
}

export function createServer(deps: ServerDeps, live = false): McpServer {
  const server = new McpServer(
    { name: 'market-data-mcp', title: 'Market Data', version: deps.version },
    {
      instructions: deps.simulated ? `${INSTRUCTIONS} DEMO MODE: all data is simulated.` : INSTRUCTIONS,
      // Declared up front, so that a client knows to listen before the first change.
      capabilities: { tools: { listChanged: true } },
      // A registry change registers its tools in one go: one notice for all of them, not one a
      // tool (a late document of 100 datasets sent 100, each a re-list of 124 tools for a host).
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
    },
  );
  guardPrototypeArguments(server);
  deps.instrument?.(server);
  const toolDeps = {
    client: deps.client,
    resultTokens: deps.resultTokens,
    simulated: deps.simulated,
    log: deps.log,
    document: () => deps.registry.document(),
  };
  const tools = new Map<string, RegisteredTool>();
  const register = (dataset: DatasetDefinition): void => {
    if (deps.hidden?.has(dataset.operationId) || tools.has(dataset.operationId)) return;
    try {
      const tool = registerDatasetTool(server, dataset, toolDeps);
      linkView(server, tool, dataset);
      tools.set(dataset.operationId, tool);
    } catch (error) {
      // The registry already keeps names apart; this guards the server, never a reason to fail every request.
      deps.log.warn({ tool: toolNameOf(dataset), err: error instanceof Error ? error.message : String(error) }, 'tool not registered');
    }
  };
  for (const dataset of deps.registry.datasets()) register(dataset);
  registerStatusTool(server, {
    client: deps.client,
    simulated: deps.simulated,
    baseUrl: deps.baseUrl,
    keyConfigured: deps.keyConfigured,
    noKeyBecause: deps.noKeyBecause,
    datasetCount: () => deps.registry.datasets().length,
    catalogNotes: () => deps.registry.notes(),
    resultTokens: deps.resultTokens,
    configWarnings: deps.configWarnings ?? [],
    noDataTools: deps.noDataTools,
  });
  if (offersCompare(deps))
    registerVolatilityCompare(server, {
      client: deps.client,
      datasets: () => deps.registry.datasets().filter((d) => !deps.hidden?.has(d.operationId)),
      resultTokens: deps.resultTokens,
      simulated: deps.simulated,
    });
  registerResources(server, deps.client, deps.registry);
  registerPrompts(server);
  registerViews(server);
  if (live) {
    const follow = (change: CatalogChange): void => {
      for (const dataset of [...change.removed, ...change.changed]) {
        tools.get(dataset.operationId)?.remove();
        tools.delete(dataset.operationId);
      }
      for (const dataset of [...change.changed, ...change.added]) register(dataset);
    };
    const stop = deps.registry.onChange(follow);
    const previous = server.server.onclose;
    server.server.onclose = () => {
      stop();
      previous?.();
    };
  }
  return server;
}
