/**
 * What `GET /v1/discover` last told this client's key (its scopes, the datasets it may
 * call), or how asking failed: kept by the client, as its cache is, so that a server built
 * per request (--http) and every key's own client (the per-user key map) each read their
 * key's. When to ask again is the MCP side's (src/mcp/arguments/discover-memory.ts).
 */
import type { ApiError } from './errors.js';

type Json = Record<string, unknown>;

export interface DiscoverAnswer {
  /** When it was asked (epoch ms). */
  at: number;
  data?: Json;
  error?: ApiError;
}

export class DiscoverMemory {
  private remembered: DiscoverAnswer | undefined;
  private readonly listeners = new Set<() => void>();

  /** Keeps discover's answer when it is an object, as the spec's is, and tells who listens. */
  answered(data: unknown, at: number): void {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) return;
    this.remembered = { at, data: data as Json };
    for (const listener of this.listeners) listener();
  }

  /** Called at every answer kept (a tool list says again what the key can call); returns the way to stop. */
  onAnswered(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  failed(error: ApiError, at: number): void {
    this.remembered = { at, error };
  }

  get last(): DiscoverAnswer | undefined {
    return this.remembered;
  }
}
