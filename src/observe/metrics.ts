/**
 * Prometheus metrics of one node (prom-client, on a registry of its own so that tests and
 * several servers in one process never mix their counts). Labels stay few and bounded:
 * tool names, outcomes and statuses, never a user or an argument.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isErrorCode } from '../catalog/index.js';

/** Outcomes other than the error table's codes that a call can end with. */
const OTHER_OUTCOMES = new Set(['ok', 'exception', 'error', 'USER_BUDGET_EXHAUSTED']);

/**
 * A call's outcome as a label: `ok`, one of the error table's codes, or `other_error`. An
 * upstream may answer with a code of its own (it reaches the agent as sent): as a label it
 * made one series per code, without end.
 */
export function outcomeLabel(outcome: string): string {
  return OTHER_OUTCOMES.has(outcome) || isErrorCode(outcome) ? outcome : 'other_error';
}

/** The statuses the spec names keep their own label; any other is counted by its class (`5xx`). */
const SPEC_STATUSES = new Set([200, 202, 400, 401, 402, 403, 404, 409, 410, 422, 429, 500, 502, 503, 504]);

export function statusLabel(status: number | undefined): string {
  if (status === undefined) return 'none';
  if (SPEC_STATUSES.has(status)) return String(status);
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
}

export class TeamMetrics {
  readonly registry = new Registry();
  readonly toolCalls = new Counter({
    name: 'mdmcp_tool_calls_total',
    help: 'Tool calls answered, by tool and outcome (ok or the error code).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly toolLatency = new Histogram({
    name: 'mdmcp_tool_call_duration_seconds',
    help: 'Time from a tool call to its answer.',
    labelNames: ['tool'] as const,
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly upstreamResponses = new Counter({
    name: 'mdmcp_upstream_responses_total',
    help: 'Upstream HTTP answers by status ("none" when no status line came).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly gateWait = new Histogram({
    name: 'mdmcp_gate_wait_seconds',
    help: 'Time a request waited for the account gate (rate window, in-flight slot, pause).',
    buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 30, 60],
    registers: [this.registry],
  });
  readonly cacheHits = new Counter({
    name: 'mdmcp_cache_hits_total',
    help: 'Tool calls answered from the cache (in process or Redis), costing no unit.',
    labelNames: ['tool'] as const,
    registers: [this.registry],
  });
  readonly unitsSpent = new Counter({
    name: 'mdmcp_units_spent_total',
    help: 'Quota units spent: upstream data answers with status 200.',
    registers: [this.registry],
  });

  /** With Redis: the units every node of the account spent today, dead nodes' included (units-ledger.ts). */
  countAccountUnits(today: () => Promise<number>): void {
    new Gauge({
      name: 'mdmcp_account_units_spent_today',
      help: 'Quota units the account spent today (UTC) through every node sharing its Redis, nodes since stopped or killed included.',
      registers: [this.registry],
      async collect() {
        this.set(await today().catch(() => Number.NaN));
      },
    });
  }

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'mdmcp_' });
  }
}
