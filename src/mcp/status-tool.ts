/**
 * `api_status`: free of quota. Opens with one line an agent can act on (calls left this
 * minute, quota left and its reset, anything disabled or out of scope), then the tools
 * this key cannot use, the budget once, the key's scope and the service's health.
 */
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import type { MarketDataClient } from '../api/client.js';
import { toolNameOf } from './dataset-tool.js';
import { asApiError } from './tool-errors.js';
import { advertisedSchema } from './input-schema.js';
import { withinBudget } from './results.js';

export const STATUS_TOOL = 'api_status';

export interface StatusDeps {
  client: MarketDataClient;
  simulated: boolean;
  baseUrl: string | undefined;
  keyConfigured: boolean;
  datasetCount: () => number;
  /** Datasets the upstream's document imported or retired, and why. */
  catalogNotes?: () => unknown;
  /** The result budget in o200k tokens (MARKET_DATA_RESULT_TOKENS). */
  resultTokens?: number;
  /** Settings that fell back to their defaults, for the user to fix (never the values). */
  configWarnings: readonly string[];
  /** Why no data tool is offered (unknown toolsets only), or undefined. */
  noDataTools: string | undefined;
}

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Tools of datasets the key cannot call, with why, from discover's dataset list. */
export function unusableTools(discovered: Json | undefined): { tool: string; reason: string }[] {
  const datasets = Array.isArray(discovered?.['datasets']) ? (discovered['datasets'] as unknown[]) : [];
  const out: { tool: string; reason: string }[] = [];
  for (const item of datasets) {
    const d = record(item);
    const operationId = str(d['operation_id']);
    if (!operationId) continue;
    const scope = str(d['scope']);
    const scopes = Array.isArray(discovered?.['access_scope']) ? (discovered['access_scope'] as unknown[]) : [];
    // A key that holds the scope and still cannot call the dataset is kept out by the
    // dataset's own rule (administrator user ids only, spec endpoint 1), not by its scope.
    const reason =
      d['status'] === 'disabled'
        ? 'disabled for now'
        : d['accessible'] === false
          ? scope !== undefined && scopes.includes(scope)
            ? 'limited to administrator accounts (the key has the scope; the account is not an administrator)'
            : `out of this key's scope (${scope ?? 'scope'})`
          : undefined;
    if (reason) out.push({ tool: toolNameOf({ operationId }), reason });
  }
  return out;
}

/** The one line: what the agent can do right now. */
export function statusLine(budget: Json, quota: Json, keyOk: boolean, unusable: { tool: string; reason: string }[]): string {
  const parts: string[] = [keyOk ? 'Key OK.' : 'Key NOT working: see key.error.'];
  const rateLeft = num(budget['rate_remaining']);
  const rateLimit = num(budget['rate_limit_per_window']);
  const rateReset = str(budget['rate_window_resets_at']);
  if (rateLeft !== undefined)
    parts.push(`${rateLeft}${rateLimit ? `/${rateLimit}` : ''} calls left this minute${rateReset ? ` (resets ${rateReset})` : ''}.`);
  const paused = str(budget['paused_until']);
  if (paused) parts.push(`Paused until ${paused}.`);
  const quotaLeft = num(quota['remaining']);
  const quotaLimit = num(quota['limit']);
  const quotaReset = str(quota['resets_at']);
  if (quotaLeft !== undefined) {
    parts.push(
      `${quotaLeft.toLocaleString('en-US')}${quotaLimit ? ` of ${quotaLimit.toLocaleString('en-US')}` : ''} quota units left${quotaReset ? `, resets ${quotaReset}` : ''}.`,
    );
  }
  if (budget['quota_exhausted'] === true) parts.push('Quota exhausted: dataset calls are refused until the reset.');
  const disabled = Array.isArray(budget['disabled'])
    ? (budget['disabled'] as unknown[]).filter((d): d is string => typeof d === 'string')
    : [];
  if (disabled.length > 0) parts.push(`Disabled: ${disabled.join(', ')}.`);
  if (unusable.length > 0) parts.push(`Cannot use: ${unusable.map((u) => u.tool).join(', ')}.`);
  return parts.join(' ');
}

export function registerStatusTool(server: McpServer, deps: StatusDeps): void {
  server.registerTool(
    STATUS_TOOL,
    {
      title: 'API status and budget',
      description: `${deps.noDataTools ? `NO DATA TOOLS ARE OFFERED: ${deps.noDataTools} ` : ''}Free: one line on what the key can do now (calls left this minute, quota left and its reset, disabled or out-of-scope tools), then details. Call it when a tool reports an auth, scope, quota or rate problem.`,
      inputSchema: advertisedSchema({ type: 'object', properties: {}, additionalProperties: false }),
      annotations: { readOnlyHint: true },
    },
    async (_args, ctx): Promise<CallToolResult> => {
      const [discover, health] = await Promise.allSettled([
        deps.client.meta('/v1/discover', { signal: ctx.mcpReq.signal, deadlineMs: 10_000 }),
        deps.client.meta('/v1/health', { signal: ctx.mcpReq.signal, deadlineMs: 10_000 }),
      ]);
      const discovered = discover.status === 'fulfilled' ? record(discover.value.data) : undefined;
      const budget = record(await deps.client.budget());
      const upstreamQuota = record(discovered?.['quota']);
      // The quota once: the limiter's view of the headers, else discover's.
      const quota = {
        remaining: num(budget['quota_remaining']) ?? num(upstreamQuota['monthly_remaining']),
        limit: num(budget['quota_limit']) ?? num(upstreamQuota['monthly_limit']),
        resets_at: str(budget['quota_resets_at']) ?? str(upstreamQuota['resets_at']),
      };
      const unusable = unusableTools(discovered);
      const status = {
        summary: [
          deps.noDataTools ? `No data tools: ${deps.noDataTools}` : '',
          statusLine(budget, quota, discovered !== undefined, unusable),
          deps.configWarnings.length > 0 ? `Settings fell back to defaults: see server.config_warnings.` : '',
        ]
          .filter(Boolean)
          .join(' '),
        cannot_use: unusable,
        // The quota once, flat beside the rate: the limiter's view of the headers, else discover's.
        budget: {
          ...budget,
          quota_remaining: quota.remaining ?? null,
          quota_limit: quota.limit ?? null,
          quota_resets_at: quota.resets_at ?? null,
        },
        key: discovered
          ? { ok: true, access_scope: discovered['access_scope'] ?? null, capabilities: discovered['capabilities'] ?? null }
          : { ok: false, error: discover.status === 'rejected' ? asApiError(discover.reason).toJSON() : null },
        health: health.status === 'fulfilled' ? health.value.data : { error: asApiError(health.reason).toJSON() },
        server: {
          base_url: deps.baseUrl ?? null,
          key_configured: deps.keyConfigured,
          simulated: deps.simulated,
          tools_for_datasets: deps.datasetCount(),
          catalog: deps.catalogNotes?.() ?? null,
          config_warnings: deps.configWarnings,
        },
      };
      const fitted = await withinBudget(status, deps.resultTokens ?? 8000);
      return { content: [{ type: 'text', text: JSON.stringify(fitted) }], structuredContent: fitted };
    },
  );
}
