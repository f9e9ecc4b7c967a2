/** `api_status`: free of quota. Discover, health and the local view of the account's budget. */
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import type { MarketDataClient } from '../api/client.js';
import { asApiError } from './tool-errors.js';
import { advertisedSchema } from './input-schema.js';

export const STATUS_TOOL = 'api_status';

export interface StatusDeps {
  client: MarketDataClient;
  simulated: boolean;
  baseUrl: string | undefined;
  keyConfigured: boolean;
  datasetCount: () => number;
}

export function registerStatusTool(server: McpServer, deps: StatusDeps): void {
  server.registerTool(
    STATUS_TOOL,
    {
      title: 'API status and budget',
      description:
        "Free (no quota): whether the key works, its access scope, which capabilities are disabled, and the account's budget: requests left in this minute, in flight, monthly quota left and when each resets. Call it when a tool reports an auth, scope, quota or rate problem.",
      inputSchema: advertisedSchema({ type: 'object', properties: {}, additionalProperties: false }),
      annotations: {
        title: 'API status and budget',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async (_args, ctx): Promise<CallToolResult> => {
      const [discover, health] = await Promise.allSettled([
        deps.client.meta('/v1/discover', { signal: ctx.mcpReq.signal, deadlineMs: 10_000 }),
        deps.client.meta('/v1/health', { signal: ctx.mcpReq.signal, deadlineMs: 10_000 }),
      ]);
      const discovered = discover.status === 'fulfilled' ? (discover.value.data as Record<string, unknown>) : undefined;
      const status = {
        server: {
          base_url: deps.baseUrl ?? null,
          key_configured: deps.keyConfigured,
          simulated: deps.simulated,
          tools_for_datasets: deps.datasetCount(),
        },
        key: discovered
          ? {
              ok: true,
              access_scope: discovered['access_scope'] ?? null,
              capabilities: discovered['capabilities'] ?? null,
              quota: discovered['quota'] ?? null,
            }
          : { ok: false, error: discover.status === 'rejected' ? asApiError(discover.reason).toJSON() : null },
        health: health.status === 'fulfilled' ? health.value.data : { error: asApiError(health.reason).toJSON() },
        budget: await deps.client.budget(),
      };
      return { content: [{ type: 'text', text: JSON.stringify(status) }], structuredContent: status };
    },
  );
}
