/**
 * What `GET /v1/discover` last said, per client: the key's scopes and which datasets it
 * may call. Discover is free of quota but not of the 60-a-minute rate, so api_status and
 * the scope check read this memory (the client's: src/api/discover-memory.ts) and ask
 * again at most once a minute.
 */
import type { CallContext } from '../../api/call-context.js';
import type { MarketDataClient } from '../../api/client.js';
import type { DiscoverAnswer } from '../../api/discover-memory.js';
import { discoveredOutOfScope } from '../../catalog/index.js';
import { asApiError } from '../answers/tool-errors.js';

/** Discover is asked again at most once in this long. */
export const DISCOVER_FRESH_MS = 60_000;

export function rememberDiscover(client: MarketDataClient, data: unknown, at: number = Date.now()): void {
  client.discovered.answered(data, at);
}

/** The memory when younger than a minute; else one free request to discover, remembered (answer or failure). */
export async function recentDiscover(
  client: MarketDataClient,
  options: { call?: CallContext; now?: () => number } = {},
): Promise<DiscoverAnswer> {
  const now = options.now ?? Date.now;
  const known = client.discovered.last;
  if (known && now() - known.at < DISCOVER_FRESH_MS) return known;
  const at = now();
  try {
    const result = await client.meta('/v1/discover', { deadlineMs: 10_000, call: options.call });
    client.discovered.answered(result.data, at);
  } catch (error) {
    client.discovered.failed(asApiError(error), at);
  }
  return client.discovered.last ?? { at };
}

/** The scope a dataset needs, when the remembered discover says this key lacks it (catalog/discover.ts). */
export function knownOutOfScope(client: MarketDataClient, operationId: string): { scope: string | undefined } | undefined {
  return discoveredOutOfScope(client.discovered.last?.data, operationId);
}
