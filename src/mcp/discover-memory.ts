/**
 * What `GET /v1/discover` last said, per client: the key's scopes and which datasets it
 * may call. Discover is free of quota but not of the 60-a-minute rate, so api_status and
 * the scope check read this memory and ask again at most once a minute.
 */
import type { CallContext } from '../api/call-context.js';
import type { MarketDataClient } from '../api/client.js';
import { discoveredOutOfScope } from '../catalog/index.js';
import { asApiError } from './tool-errors.js';
import type { ApiError } from '../api/errors.js';

/** Discover is asked again at most once in this long. */
export const DISCOVER_FRESH_MS = 60_000;

type Json = Record<string, unknown>;

export interface DiscoverMemory {
  /** When it was asked (epoch ms). */
  at: number;
  data?: Json;
  error?: ApiError;
}

// Keyed by client: --http builds a server per request, while the client (and its gate) lives on.
const memories = new WeakMap<MarketDataClient, DiscoverMemory>();

export function rememberDiscover(client: MarketDataClient, data: unknown, at: number = Date.now()): void {
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) memories.set(client, { at, data: data as Json });
}

/** The memory when younger than a minute; else one free request to discover, remembered (answer or failure). */
export async function recentDiscover(
  client: MarketDataClient,
  options: { call?: CallContext; now?: () => number } = {},
): Promise<DiscoverMemory> {
  const now = options.now ?? Date.now;
  const known = memories.get(client);
  if (known && now() - known.at < DISCOVER_FRESH_MS) return known;
  const at = now();
  try {
    const result = await client.meta('/v1/discover', { deadlineMs: 10_000, call: options.call });
    rememberDiscover(client, result.data, at);
  } catch (error) {
    memories.set(client, { at, error: asApiError(error) });
  }
  return memories.get(client) ?? { at };
}

/** The scope a dataset needs, when the remembered discover says this key lacks it (catalog/discover.ts). */
export function knownOutOfScope(client: MarketDataClient, operationId: string): { scope: string | undefined } | undefined {
  return discoveredOutOfScope(memories.get(client)?.data, operationId);
}
