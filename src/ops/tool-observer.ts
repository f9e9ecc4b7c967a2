/**
 * One audit line and the metrics for every tool call: who (subject, client id), what
 * (tool, a hash of the arguments), on which account (a hash), what it cost (units, gate
 * wait), how it ended and how long it took. Never a key, a token or an argument's value.
 */
import type { CallToolResult, McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { currentCaller, digestOf, runAsCaller, type Caller } from '../auth/caller.js';
import type { Logger } from '../log.js';
import { recordCall, type CallRecord } from './call-record.js';
import { outcomeLabel, type TeamMetrics } from './metrics.js';

export interface ToolObserver {
  metrics: TeamMetrics;
  /** The audit trail: info lines on stderr (pino), one per call. */
  log: Pick<Logger, 'info'>;
  /** A one-way name of the upstream account that pays for the calls. */
  account: () => string;
  now?: () => number;
}

type ToolHandler = (...params: unknown[]) => CallToolResult | Promise<CallToolResult>;
type Register = (name: string, config: unknown, handler: ToolHandler) => RegisteredTool;

/** Wraps every tool registered on `server` from now on. */
export function observeToolCalls(server: McpServer, observer: ToolObserver): void {
  const register = server.registerTool.bind(server) as unknown as Register;
  const observed: Register = (name, config, handler) => register(name, config, wrap(name, handler, observer));
  server.registerTool = observed;
}

function wrap(tool: string, handler: ToolHandler, observer: ToolObserver): ToolHandler {
  const now = observer.now ?? Date.now;
  return async (...params) => {
    // The SDK passes (args, ctx) to tools with an input schema and (ctx) to the others.
    const args = params.length > 1 ? params[0] : undefined;
    // The request's own AuthInfo (ctx.http.authInfo) names the caller: the async context the
    // SDK runs a tool in may be another request's, so the caller is set again here, and the
    // gate's fair shares and this audit line both read it from this call's context.
    const caller = callerOf(fieldOf(fieldOf(params.at(-1), 'http'), 'authInfo')) ?? currentCaller();
    const record: CallRecord = { units: 0, upstreamRequests: 0, gateWaitMs: 0 };
    const started = now();
    let result: CallToolResult | undefined;
    const run = (): CallToolResult | Promise<CallToolResult> => recordCall(record, () => handler(...params));
    try {
      result = await (caller ? runAsCaller(caller, run) : run());
      return result;
    } finally {
      const latencyMs = now() - started;
      const outcome = outcomeOf(result);
      const cacheHit = cacheHitOf(result);
      observer.metrics.toolCalls.inc({ tool, outcome: outcomeLabel(outcome) });
      observer.metrics.toolLatency.observe({ tool }, latencyMs / 1000);
      if (cacheHit) observer.metrics.cacheHits.inc({ tool });
      observer.log.info(
        {
          audit: 'tool_call',
          subject: caller?.subject ?? 'local',
          client_id: caller?.clientId ?? 'local',
          tool,
          args_sha256: digestOf(stableJson(args ?? {})),
          account: observer.account(),
          units: record.units,
          upstream_requests: record.upstreamRequests,
          gate_wait_ms: record.gateWaitMs,
          cache_hit: cacheHit,
          outcome,
          latency_ms: latencyMs,
        },
        'tool call',
      );
    }
  };
}

/** "ok", the error's code, or "exception" when the handler threw (the SDK then answers an error). */
function outcomeOf(result: CallToolResult | undefined): string {
  if (!result) return 'exception';
  if (result.isError !== true) return 'ok';
  const structured = fieldOf(result.structuredContent, 'error');
  if (structured && typeof structured === 'object' && 'code' in structured && typeof structured.code === 'string') return structured.code;
  for (const block of result.content) {
    const code = block.type === 'text' ? /"code":"([A-Z][A-Z0-9_]*)"/.exec(block.text)?.[1] : undefined;
    if (code) return code;
  }
  return 'error';
}

function cacheHitOf(result: CallToolResult | undefined): boolean {
  const meta = fieldOf(result?.structuredContent, 'meta');
  return typeof meta === 'object' && meta !== null && 'cache_hit' in meta && meta.cache_hit === true;
}

/** The caller the HTTP guard put in the request's AuthInfo (src/auth/http-guard.ts). */
function callerOf(authInfo: unknown): Caller | undefined {
  const subject = fieldOf(fieldOf(authInfo, 'extra'), 'subject');
  const clientId = fieldOf(authInfo, 'clientId');
  return typeof subject === 'string' && typeof clientId === 'string' ? { subject, clientId } : undefined;
}

function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** The same arguments give the same hash whatever the order of their keys. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}
