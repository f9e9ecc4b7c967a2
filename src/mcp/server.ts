/**
 * The server factory, kept apart from transports: stdio pins one instance, HTTP builds
 * one per request, tests connect in memory. Tools come from the dataset registry.
 */
import { McpServer } from '@modelcontextprotocol/server';
import type { MarketDataClient } from '../api/client.js';
import type { DatasetDefinition } from '../catalog/index.js';
import type { Logger } from '../log.js';
import { registerDatasetTool } from './dataset-tool.js';
import { registerPrompts, registerResources } from './guides.js';
import type { DatasetRegistry } from './registry.js';
import { registerStatusTool } from './status-tool.js';

export interface ServerDeps {
  client: MarketDataClient;
  registry: DatasetRegistry;
  log: Logger;
  version: string;
  resultTokens: number;
  simulated: boolean;
  baseUrl: string | undefined;
  keyConfigured: boolean;
  /** Configuration the server ignored or replaced by a default, shown by api_status. */
  configWarnings?: readonly string[];
  /** Why no data tool is offered (e.g. only unknown toolsets), shown in api_status's description. */
  noDataTools?: string;
  /** Operation ids the key may not call, hidden when the user asked for it. */
  hidden?: ReadonlySet<string>;
}

const INSTRUCTIONS = [
  'Market data tools: options flow, dealer gamma exposure (GEX), short interest, volatility, institutional, insider, congress, dark-pool and macro datasets.',
  'Every successful dataset call costs 1 unit of a shared monthly quota (cached repeats are free); api_status is free and shows the budget.',
  'Tickers are upper case (SPY, BRK.B). Errors carry a code, a hint and an action: follow them rather than retrying blindly.',
].join(' ');

/**
 * Builds one server instance. With `live`, datasets registered upstream later become
 * tools on this instance (sending tools/list_changed); `close` stops listening.
 */
export function createServer(deps: ServerDeps, live = false): McpServer {
  const server = new McpServer(
    { name: 'market-data-mcp', title: 'Market Data', version: deps.version },
    { instructions: deps.simulated ? `${INSTRUCTIONS} DEMO MODE: all data is simulated.` : INSTRUCTIONS },
  );
  const toolDeps = { client: deps.client, resultTokens: deps.resultTokens, simulated: deps.simulated };
  const register = (dataset: DatasetDefinition): void => {
    if (!deps.hidden?.has(dataset.operationId)) registerDatasetTool(server, dataset, toolDeps);
  };
  for (const dataset of deps.registry.datasets()) register(dataset);
  registerStatusTool(server, {
    client: deps.client,
    simulated: deps.simulated,
    baseUrl: deps.baseUrl,
    keyConfigured: deps.keyConfigured,
    datasetCount: () => deps.registry.datasets().length,
    configWarnings: deps.configWarnings ?? [],
    noDataTools: deps.noDataTools,
  });
  registerResources(server, deps.client, deps.registry);
  registerPrompts(server);
  if (live) {
    const stop = deps.registry.onAdded((added) => {
      const offered = new Set(deps.registry.datasets().map((d) => d.operationId));
      for (const dataset of added) if (offered.has(dataset.operationId)) register(dataset);
    });
    const previous = server.server.onclose;
    server.server.onclose = () => {
      stop();
      previous?.();
    };
  }
  return server;
}
