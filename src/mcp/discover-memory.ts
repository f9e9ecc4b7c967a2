/**
 * What `GET /v1/discover` last said, per client: the key's scopes and which datasets it
 * may call. Discover is free of quota but not of the 60-a-minute rate, so api_status and
 * the scope check read this memory and ask again at most once a minute.
 */
import type { MarketDataClient } from '../api/client.js';
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
  options: { signal?: AbortSignal; now?: () => number } = {},
): Promise<DiscoverMemory> {
  const now = options.now ?? Date.now;
  const known = memories.get(client);
  if (known && now() - known.at < DISCOVER_FRESH_MS) return known;
  const at = now();
  try {
    const result = await client.meta('/v1/discover', { deadlineMs: 10_000, ...(options.signal ? { signal: options.signal } : {}) });
    rememberDiscover(client, result.data, at);
  } catch (error) {
    memories.set(client, { at, error: asApiError(error) });
  }
  return memories.get(client) ?? { at };
}

/**
 * The scope a dataset needs, when discover says this key lacks it; undefined when the key
 * is not known to lack it. An administrator-only dataset whose scope the key holds is not
 * out of scope (its refusal is another matter).
 */
export function knownOutOfScope(client: MarketDataClient, operationId: string): { scope: string | undefined } | undefined {
  const data = memories.get(client)?.data;
  const datasets = Array.isArray(data?.['datasets']) ? (data['datasets'] as unknown[]) : [];
  const scopes = Array.isArray(data?.['access_scope']) ? (data['access_scope'] as unknown[]) : [];
  for (const item of datasets) {
    if (typeof item !== 'object' || item === null) continue;
    const d = item as Json;
    if (d['operation_id'] !== operationId || d['accessible'] !== false) continue;
    const scope = typeof d['scope'] === 'string' ? d['scope'] : undefined;
    return scope !== undefined && scopes.includes(scope) ? undefined : { scope };
  }
  return undefined;
}
