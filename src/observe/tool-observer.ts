/**
 * One audit line and the metrics for every tool call: who (subject, client id), what
 * (tool, a hash of the arguments), on which account (a hash), what it cost (units, gate
 * wait), how it ended and how long it took. Never a key, a token or an argument's value.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { digestOf } from '../auth/caller.js';
import type { Logger } from '../log.js';
import { withHandler, type ToolHandler, type ToolMiddleware } from '../mcp/tool.js';
import { outcomeLabel, type TeamMetrics } from './metrics.js';

export interface ToolObserver {
  metrics: TeamMetrics;
  /** The audit trail: info lines on stderr (pino), one per call. */
  log: Pick<Logger, 'info'>;
  /** A one-way name of the upstream account that pays for the calls. */
  account: () => string;
  now?: () => number;
}

/** The middleware that writes every call's audit line and metrics. */
export function observeToolCalls(observer: ToolObserver): ToolMiddleware {
  return (tool) => withHandler(tool, observed(tool.name, tool.handler, observer));
}

function observed(tool: string, handler: ToolHandler, observer: ToolObserver): ToolHandler {
  const now = observer.now ?? Date.now;
  return async (args, ctx, call) => {
    // The call's context names its caller and gathers its cost: the gate wrote into the same
    // record while the call ran (src/observe/observed-gate.ts).
    const { caller, record } = call;
    const started = now();
    let result: CallToolResult | undefined;
    try {
      result = await handler(args, ctx, call);
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
          args_sha256: digestOf(stableJson(args)),
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
