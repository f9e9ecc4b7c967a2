/**
 * Resources: the API's own descriptions (its OpenAPI document and what discover says of the
 * key), read by an agent or a person without a tool call.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import type { MarketDataClient } from '../api/client.js';
import { buildOpenApiDocument } from '../catalog/index.js';
import type { DatasetRegistry } from '../registry/dataset-registry.js';
import { callContextOf } from './call-context.js';

export function registerResources(server: McpServer, client: MarketDataClient, registry: DatasetRegistry): void {
  server.registerResource(
    'openapi',
    'market-data://openapi.json',
    {
      title: 'Market Data Read API: OpenAPI document',
      description: "The upstream's /v1/openapi.json (the built-in catalog's when the upstream is unreachable).",
      mimeType: 'application/json',
    },
    (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify(registry.document() ?? buildOpenApiDocument(registry.datasets())),
        },
      ],
    }),
  );
  server.registerResource(
    'discover',
    'market-data://discover',
    {
      title: 'Market Data Read API: discover',
      description: "The key's access scope, datasets with coverage, and quota (free).",
      mimeType: 'application/json',
    },
    async (uri, ctx) => {
      // Over --http the reader's own call: its turn among the account's users, and it stops when they hang up.
      const result = await client.meta('/v1/discover', { deadlineMs: 10_000, call: callContextOf(ctx, 10_000) });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(result.data) }] };
    },
  );
}
