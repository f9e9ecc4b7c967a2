/**
 * The server factory, kept apart from transports: stdio pins one instance, HTTP builds
 * one per request, tests connect in memory. Tools come from the dataset registry.
 */
import { McpServer, type ClientCapabilities, type RegisteredTool, type ServerContext } from '@modelcontextprotocol/server';
import type { CallContext } from '../api/call-context.js';
import type { MarketDataClient } from '../api/client.js';
import type { DatasetDefinition } from '../catalog/index.js';
import type { Logger } from '../log.js';
import { registerViews, withView } from './views.js';
import { callContextOf } from './call-context.js';
import { datasetTool, toolDescription, toolNameOf, type ToolDeps } from './tools/dataset-tool.js';
import { afterDocument } from './tools/document-first.js';
import type { FanOutDeps } from './tools/fan-out.js';
import { offeredNameTools } from './tools/name-tools.js';
import { costLine, costsByTool } from './tools/request-costs.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import type { CatalogChange, DatasetRegistry } from '../registry/dataset-registry.js';
import { statusTool } from './tools/status-tool.js';
import { NO_MIDDLEWARE, registerTool, type ToolDefinition, type ToolMiddleware } from './tool.js';
import { COMPARE_DATASETS, COMPARE_REACH, COMPARE_TOOL, COMPARE_TOOLSET, volatilityCompareTool } from './tools/volatility-compare.js';
import type { OfferedTool } from './tools/selection.js';
import { withFanOutReach, withReach, type FanOutReach } from './key-reach.js';

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
  /** The tools the user chose (--toolsets, --tools, --exclude-tools) beyond datasets; every one without it. */
  offers?: (tool: OfferedTool) => boolean;
  /** What wraps every tool before it is registered (traces, audit and metrics: src/observe), composed once where these deps are made. */
  middleware?: ToolMiddleware | undefined;
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
 * volatility_compare is offered with the volatility toolset, or by name, when a dataset it
 * fans out to is there for the key, whether or not that dataset's own tool is offered.
 */
function offersCompare(deps: ServerDeps): boolean {
  return (deps.offers?.({ name: COMPARE_TOOL, toolset: COMPARE_TOOLSET }) ?? true) && COMPARE_DATASETS.some(readable(deps));
}

/** Whether a dataset can be read by a tool over several datasets: known, and not hidden (its own tool offered or not). */
function readable(deps: ServerDeps): (operationId: string) => boolean {
  return (id) => !deps.hidden?.has(id) && deps.registry.known().some((d) => d.operationId === id);
}

/** The datasets a tool over several of them may read. */
function readableDatasets(deps: ServerDeps): DatasetDefinition[] {
  return deps.registry.known().filter((d) => !deps.hidden?.has(d.operationId));
}

/**
 * The tools over several names (dealer compare, sector screener, briefing) offered: as
 * volatility_compare, with their toolset or by name, where the datasets they read are.
 */
function nameTools(deps: ServerDeps): ReturnType<typeof offeredNameTools> {
  return offeredNameTools(readable(deps), (tool) => deps.offers?.(tool) ?? true);
}

/** The tools createServer offers now: one per dataset not hidden, api_status, volatility_compare and the tools over several names with their toolsets. */
export function offeredToolCount(deps: ServerDeps): number {
  const datasets = new Set(deps.registry.datasets().map((d) => d.operationId));
  const shown = [...datasets].filter((id) => !deps.hidden?.has(id)).length;
  return shown + 1 + (offersCompare(deps) ? 1 : 0) + nameTools(deps).length;
}

/** The tools over several datasets offered (volatility_compare, the tools over several names), with their parts. */
function offeredFanOuts(deps: ServerDeps): { name: string; reach: FanOutReach }[] {
  return [
    ...(offersCompare(deps) ? [{ name: COMPARE_TOOL, reach: COMPARE_REACH }] : []),
    ...nameTools(deps).map((t) => ({ name: t.name, reach: t.reach })),
  ];
}

/** api_status, always offered. */
function statusOf(deps: ServerDeps): ToolDefinition {
  return statusTool({
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
    costs: () => {
      const datasets = readableDatasets(deps);
      // Every tool over several datasets offered, volatility_compare with them.
      const tools = offeredFanOuts(deps).map((t) => t.name);
      return { line: costLine(deps.client, datasets, tools), byTool: costsByTool(deps.client, datasets, tools) };
    },
    fanOuts: () => offeredFanOuts(deps),
  });
}

interface BuiltServer {
  server: McpServer;
  /** Removes and registers again the tools of datasets a registry change touched. */
  follow(change: CatalogChange): void;
  /** States again what a call spends, in the descriptions of the tools it depends on for (a page size of `operationId` was seen). */
  describeCosts(operationId: string): void;
  /** States again which tools this key cannot call, whole or in part (discover answered). */
  describeReach(): void;
}

function buildServer(deps: ServerDeps): BuiltServer {
  const server = newMcpServer(deps);
  const wiring: ToolWiring = {
    server,
    middleware: deps.middleware ?? NO_MIDDLEWARE,
    // Each call's context, made as it arrives: its deadline is the configured one from then.
    contextOf: (ctx) => callContextOf(ctx, deps.client.deadlineMs),
  };
  const toolDeps: ToolDeps = {
    client: deps.client,
    resultTokens: deps.resultTokens,
    simulated: deps.simulated,
    log: deps.log,
  };
  const datasets = datasetTools(wiring, deps, toolDeps);
  for (const dataset of deps.registry.datasets()) datasets.register(dataset);
  const described = registerOwnTools(wiring, deps, toolDeps);
  // The tools over several datasets say again what they spend and what this key can call of them.
  const describeOwn = (): void => {
    for (const { describe, handle } of described) {
      const text = describe();
      if (handle.description !== text) handle.update({ description: text });
    }
  };
  registerResources(server, deps.client, deps.registry);
  registerPrompts(server);
  registerViews(server);
  return {
    server,
    follow: (change) => datasets.follow(change),
    describeCosts(operationId) {
      datasets.describeCosts(operationId);
      describeOwn();
    },
    describeReach() {
      datasets.describeReach();
      describeOwn();
    },
  };
}

function newMcpServer(deps: ServerDeps): McpServer {
  return new McpServer(
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
}

/** How a tool reaches one server: the server, what wraps every tool, and each call's context. */
interface ToolWiring {
  readonly server: McpServer;
  readonly middleware: ToolMiddleware;
  readonly contextOf: (ctx: ServerContext) => CallContext;
}

/** The tools of datasets on one server, by operation id. */
interface DatasetTools {
  register(dataset: DatasetDefinition): void;
  /** Removes and registers again the tools of datasets a registry change touched. */
  follow(change: CatalogChange): void;
  /** States again what a call of `operationId`'s tool spends, in its description. */
  describeCosts(operationId: string): void;
  /** States again, in each description, whether discover said this key cannot call it. */
  describeReach(): void;
}

function datasetTools(wiring: ToolWiring, deps: ServerDeps, toolDeps: ToolDeps): DatasetTools {
  const { server, middleware, contextOf } = wiring;
  // What a call spends, and first whether discover said this key cannot call it at all.
  const describe = (dataset: DatasetDefinition): string =>
    withReach(toolDescription(dataset, deps.client), deps.client, dataset.operationId);
  // What the session's client declared at initialize: whether it renders views, for the older protocol.
  const declared = (): ClientCapabilities | undefined => server.server.getClientCapabilities();
  // A call made before a first start's document arrived waits for it (tools/document-first.ts).
  const documentTool = (dataset: DatasetDefinition): ToolDefinition => {
    const tool = afterDocument(datasetTool(dataset, toolDeps), deps.registry, {
      definition: dataset,
      rebuild: (now) => datasetTool(now, toolDeps),
    });
    return { ...tool, config: { ...tool.config, description: describe(dataset) } };
  };
  const registered = new Map<string, RegisteredTool>();
  const register = (dataset: DatasetDefinition): void => {
    if (deps.hidden?.has(dataset.operationId) || registered.has(dataset.operationId)) return;
    try {
      registered.set(dataset.operationId, registerTool(server, middleware(withView(documentTool(dataset), dataset, declared)), contextOf));
    } catch (error) {
      // The registry already keeps names apart; this guards the server, never a reason to fail every request.
      deps.log.warn({ tool: toolNameOf(dataset), err: error instanceof Error ? error.message : String(error) }, 'tool not registered');
    }
  };
  return {
    register,
    follow(change) {
      for (const dataset of [...change.removed, ...change.changed]) {
        registered.get(dataset.operationId)?.remove();
        registered.delete(dataset.operationId);
      }
      for (const dataset of [...change.changed, ...change.added]) register(dataset);
    },
    describeCosts(operationId) {
      const dataset = deps.registry.datasets().find((d) => d.operationId === operationId);
      const tool = registered.get(operationId);
      const description = dataset ? describe(dataset) : undefined;
      if (tool && description !== undefined && tool.description !== description) tool.update({ description });
    },
    describeReach() {
      for (const dataset of deps.registry.datasets()) {
        const tool = registered.get(dataset.operationId);
        const description = describe(dataset);
        if (tool && tool.description !== description) tool.update({ description });
      }
    },
  };
}

/** A registered tool over several datasets, with what its description says now. */
interface DescribedTool {
  readonly describe: () => string;
  readonly handle: RegisteredTool;
}

/**
 * Registers api_status, volatility_compare and the tools over several names; returns the
 * latter two, whose descriptions follow costs and what discover says this key can call.
 */
function registerOwnTools(wiring: ToolWiring, deps: ServerDeps, toolDeps: ToolDeps): DescribedTool[] {
  const { server, middleware, contextOf } = wiring;
  const register = (tool: ToolDefinition): RegisteredTool =>
    registerTool(server, middleware(afterDocument(tool, deps.registry)), contextOf);
  register(statusOf(deps));
  // What discover says of the key's reach first, then the tool's own words (and costs).
  const described = (tool: ToolDefinition, reach: FanOutReach, words: () => string): DescribedTool => {
    const describe = (): string => withFanOutReach(words(), deps.client, reach);
    return { describe, handle: register({ ...tool, config: { ...tool.config, description: describe() } }) };
  };
  const tools: DescribedTool[] = [];
  if (offersCompare(deps)) {
    const compare = volatilityCompareTool({
      client: deps.client,
      datasets: () => readableDatasets(deps),
      resultTokens: deps.resultTokens,
      simulated: deps.simulated,
    });
    tools.push(described(compare, COMPARE_REACH, () => compare.config.description));
  }
  const fanOut: FanOutDeps = { tool: toolDeps, datasets: () => readableDatasets(deps) };
  for (const nameTool of nameTools(deps)) tools.push(described(nameTool.tool(fanOut), nameTool.reach, () => nameTool.describe(fanOut)));
  return tools;
}

/** One server instance with the tools the registry holds now (HTTP builds one per request; tests connect one in memory). */
export function createServer(deps: ServerDeps): McpServer {
  return buildServer(deps).server;
}

export interface LiveServer {
  server: McpServer;
  /** Stops following the registry: the transport calls it when the session ends. */
  stop(): void;
}

/**
 * A server whose tool list follows the registry: datasets added, changed or removed
 * upstream while it runs are registered, replaced or removed here (one tools/list_changed
 * for a change) until `stop`. What a call spends is said again once the upstream's page
 * size is seen (a server built per HTTP request reads it when built, so only this one listens).
 */
export function createLiveServer(deps: ServerDeps): LiveServer {
  const built = buildServer(deps);
  const stopFollowing = deps.registry.onChange((change) => built.follow(change));
  const stopCosts = deps.client.onPageRowsSeen((operationId) => built.describeCosts(operationId));
  // Discover answered (api_status, a scope refusal): the tools this key cannot call say so, one tools/list_changed.
  const stopReach = deps.client.discovered.onAnswered(() => built.describeReach());
  return {
    server: built.server,
    stop: () => {
      stopFollowing();
      stopCosts();
      stopReach();
    },
  };
}
