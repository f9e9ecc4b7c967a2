/**
 * OpenTelemetry traces following the MCP semantic conventions: one SERVER span per
 * tools/call (`tools/call {tool}`, with mcp.method.name, gen_ai.tool.name,
 * gen_ai.operation.name, jsonrpc.request.id, mcp.session.id, network.transport), the
 * caller's trace continued when the request's `_meta` carries a W3C `traceparent`, and a
 * CLIENT span under it for each upstream HTTP request. Loaded only when tracing is wanted
 * (tracing-settings.ts); exported over OTLP/HTTP as the standard OTEL_* variables say.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { ClientRequest, type IncomingMessage } from 'node:http';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { withHandler, type ToolHandler, type ToolMiddleware } from '../mcp/tool.js';

export interface Tracing {
  readonly tracer: Tracer;
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  version: string;
  /** Tests pass an in-memory exporter's processor; by default OTLP/HTTP from the OTEL_* variables. */
  processor?: SpanProcessor | undefined;
  env?: NodeJS.ProcessEnv | undefined;
}

/** The transport as network.transport names it: stdio is a pipe, Streamable HTTP runs on TCP. */
export type NetworkTransport = 'pipe' | 'tcp';

/** What tracing gives the runtime: the middleware that traces each tool call, and the flush at close. */
export interface ToolTracing {
  readonly middleware: ToolMiddleware;
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

/** A start that failed, with why: the server serves untraced, as traces are not worth an outage. */
export interface TracingFailed {
  readonly failed: string;
}

/** For the command line: the tool calls traced over OTLP, as the OTEL_* variables say. */
export function startToolTracing(version: string, transport: NetworkTransport): ToolTracing | TracingFailed {
  try {
    const tracing = startTracing({ version });
    return { middleware: traceToolCalls(tracing.tracer, transport), shutdown: () => tracing.shutdown() };
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}

/** Says, once the log exists, whether traces are on. */
export function reportTracing(log: Pick<Logger, 'info' | 'warn'>, started: ToolTracing | TracingFailed, transport: NetworkTransport): void {
  if ('failed' in started) log.warn({ err: started.failed }, 'OpenTelemetry could not start; serving without traces');
  else log.info({ transport }, 'OpenTelemetry traces on (OTLP/HTTP, from the OTEL_* variables)');
}

export function startTracing(options: TracingOptions): Tracing {
  const env = options.env ?? process.env;
  // Endpoint, headers, timeout and compression come from OTEL_EXPORTER_OTLP_(TRACES_)* as the spec says.
  const processor = options.processor ?? new BatchSpanProcessor(new OTLPTraceExporter());
  const resource = resourceFromAttributes({
    'service.name': env['OTEL_SERVICE_NAME']?.trim() || 'market-data-mcp',
    'service.version': options.version,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  // The tool span must be the active context across the awaits down to the upstream request.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracer = trace.getTracer('market-data-mcp', options.version);
  const stopUpstream = traceUpstreamRequests(tracer);
  return {
    tracer,
    async shutdown() {
      stopUpstream();
      await provider.shutdown();
    },
  };
}

/** The middleware that puts every call in a SERVER span. */
export function traceToolCalls(tracer: Tracer, transport: NetworkTransport): ToolMiddleware {
  return (tool) => withHandler(tool, traced(tool.name, tool.handler, tracer, transport));
}

function traced(tool: string, handler: ToolHandler, tracer: Tracer, transport: NetworkTransport): ToolHandler {
  return async (args, ctx, call) => {
    // The request's id and _meta (where a caller's traceparent rides) are in ctx.mcpReq.
    const meta = ctx.mcpReq._meta;
    const carrier: Record<string, string> = {};
    for (const key of ['traceparent', 'tracestate']) {
      const value = fieldOf(meta, key);
      if (typeof value === 'string') carrier[key] = value;
    }
    const parent = propagation.extract(context.active(), carrier);
    const id = ctx.mcpReq.id;
    const session = ctx.sessionId;
    const span = tracer.startSpan(
      `tools/call ${tool}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': tool,
          'gen_ai.operation.name': 'execute_tool',
          'network.transport': transport,
          ...(typeof id === 'string' || typeof id === 'number' ? { 'jsonrpc.request.id': String(id) } : {}),
          ...(typeof session === 'string' ? { 'mcp.session.id': session } : {}),
        },
      },
      parent,
    );
    try {
      const result = await context.with(trace.setSpan(parent, span), () => handler(args, ctx, call));
      if (result.isError === true) {
        // A tool error is a successful JSON-RPC answer: the conventions mark it by error.type.
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: toolErrorCode(result) });
      }
      return result;
    } catch (error) {
      span.setAttribute('error.type', error instanceof Error ? error.name : 'exception');
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  };
}

function toolErrorCode(result: CallToolResult): string {
  const code = fieldOf(fieldOf(result.structuredContent, 'error'), 'code');
  return typeof code === 'string' ? code : 'tool_error';
}

/**
 * A CLIENT span for each upstream request made while a tool span is active, from node:http's
 * diagnostics channel (every request goes through node:http: src/api/transport.ts): the
 * client and its transport stay unaware of tracing. Requests outside a tool call (catalog
 * refresh, readiness probes) are not traced. No header is added: the trace is not
 * propagated to the upstream API. Node 20 has no request-error channel, so the span follows
 * the request's own events to its end.
 */
function traceUpstreamRequests(tracer: Tracer): () => void {
  const onStart = (message: unknown): void => {
    const request = fieldOf(message, 'request');
    if (!(request instanceof ClientRequest)) return;
    const active = context.active();
    if (!trace.getSpan(active)) return;
    const method = request.method || 'GET';
    const secure = request.protocol === 'https:';
    const port = Number(/:(\d+)$/.exec(String(request.getHeader('host') ?? ''))?.[1] ?? (secure ? 443 : 80));
    const url = `${request.protocol}//${request.host}${port === (secure ? 443 : 80) ? '' : `:${port}`}${request.path}`;
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': method, 'server.address': request.host, 'server.port': port, 'url.full': url },
      },
      active,
    );
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      span.end();
    };
    request.once('response', (response: IncomingMessage) => {
      const status = response.statusCode;
      if (typeof status !== 'number') return;
      span.setAttribute('http.response.status_code', status);
      if (status >= 400) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    });
    request.once('error', (error: Error) => {
      span.setAttribute('error.type', textOf(error, 'code') ?? error.name);
      span.setStatus({ code: SpanStatusCode.ERROR });
      end();
    });
    request.once('close', end);
  };
  subscribe('http.client.request.start', onStart);
  return () => unsubscribe('http.client.request.start', onStart);
}

function textOf(value: unknown, key: string): string | undefined {
  const field = fieldOf(value, key);
  return typeof field === 'string' && field !== '' ? field : undefined;
}

function fieldOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}
