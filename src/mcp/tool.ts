/**
 * A tool is a value: its name, what the host is told of it (`config`) and what answers a
 * call (`handler`). The server factory (server.ts) builds the list of values and registers
 * it; what every call shares (audit, metrics, traces) is middleware, a function from one
 * value to another applied to the list before registration. No SDK object is changed
 * after it is made.
 */
import type {
  CallToolResult,
  McpServer,
  RegisteredTool,
  ServerContext,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { CallContext } from '../api/call-context.js';
import type { ToolArguments } from './arguments/input-schema.js';

export interface ToolConfig {
  readonly title: string;
  readonly description: string;
  readonly inputSchema: StandardSchemaWithJSON<ToolArguments, ToolArguments>;
  readonly outputSchema?: StandardSchemaWithJSON<unknown, unknown>;
  readonly annotations: ToolAnnotations;
  /** Extension metadata (an MCP Apps view's resource URI). */
  readonly _meta?: Record<string, unknown>;
}

/**
 * Answers one call: the arguments as the host sent them (already an object), the SDK's
 * request context (progress token and notifications, the request's id, _meta and envelope)
 * and the call's own context (caller, cancellation, deadline, cost: api/call-context.ts),
 * which the tool hands to the client with every request it makes.
 */
export type ToolHandler = (args: ToolArguments, ctx: ServerContext, call: CallContext) => Promise<CallToolResult>;

export interface ToolDefinition {
  readonly name: string;
  readonly config: ToolConfig;
  readonly handler: ToolHandler;
}

/** What wraps every tool (an audit line, a span): a new value with the handler wrapped, the rest kept. */
export type ToolMiddleware = (tool: ToolDefinition) => ToolDefinition;

export const NO_MIDDLEWARE: ToolMiddleware = (tool) => tool;

/** One middleware of several, the first outermost: composeMiddleware(trace, audit)(tool) is trace(audit(tool)). */
export function composeMiddleware(...layers: readonly ToolMiddleware[]): ToolMiddleware {
  return (tool) => layers.reduceRight((inner, layer) => layer(inner), tool);
}

/** The same tool with another handler: what a middleware usually returns. */
export function withHandler(tool: ToolDefinition, handler: ToolHandler): ToolDefinition {
  return { ...tool, handler };
}

/** Registers the tool; each call's context is made by `contextOf` from the SDK's, as the call arrives. */
export function registerTool(server: McpServer, tool: ToolDefinition, contextOf: (ctx: ServerContext) => CallContext): RegisteredTool {
  return server.registerTool(tool.name, tool.config, (args, ctx) => tool.handler(args, ctx, contextOf(ctx)));
}
