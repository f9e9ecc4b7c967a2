/**
 * A response cache bounded by entries and by bytes, with a time-to-live per cache class,
 * and a table of requests under way so that identical concurrent calls share one
 * upstream request. Large payloads would otherwise pile up: 500 answers of 5 MB each
 * exhausted the process's memory.
 */
import { LRUCache } from 'lru-cache';
import type { CacheClass } from '../catalog/index.js';
import { isEnvelopeShaped } from '../catalog/index.js';

/** How long a 200 stays fresh, by how fast its dataset changes. */
export const CACHE_TTL_MS: Record<CacheClass, number> = {
  intraday: 30_000,
  daily: 10 * 60_000,
  filings: 6 * 60 * 60_000,
  static: 24 * 60 * 60_000,
};

export interface CachedEntry<T> {
  readonly value: T;
  readonly storedAt: number;
}

/** What all entries together may hold, in characters of JSON (about bytes for this data). */
export const CACHE_MAX_CHARS = 16 * 1024 * 1024;
/** One entry above this is not kept: the agent sees a trimmed result anyway, and a repeat is rare. */
export const CACHE_MAX_ENTRY_CHARS = 1024 * 1024;

export interface CacheLimits {
  maxChars?: number;
  maxEntryChars?: number;
}

/** An error envelope (`{error: {...}}`) is never data, whatever the status it came with. */
export function isErrorEnvelope(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const data = (value as { data?: unknown }).data;
  return isEnvelopeShaped(data === undefined ? value : data);
}

export class ResponseCache<T extends object> {
  private readonly entries: LRUCache<string, CachedEntry<T>> | undefined;
  private readonly maxEntryChars: number;

  constructor(
    maxEntries: number,
    private readonly now: () => number = Date.now,
    limits: CacheLimits = {},
  ) {
    this.maxEntryChars = limits.maxEntryChars ?? CACHE_MAX_ENTRY_CHARS;
    this.entries =
      maxEntries > 0
        ? new LRUCache<string, CachedEntry<T>>({
            max: maxEntries,
            maxSize: limits.maxChars ?? CACHE_MAX_CHARS,
            maxEntrySize: this.maxEntryChars,
            // Measured once, when stored; set() passes the size it already computed.
            sizeCalculation: (entry) => JSON.stringify(entry.value).length || 1,
            ttlAutopurge: false,
          })
        : undefined;
  }

  get(key: string): CachedEntry<T> | undefined {
    return this.entries?.get(key);
  }

  /** Keeps `value` unless it is an error envelope or larger than the per-entry cap. */
  set(key: string, value: T, ttlMs: number): void {
    if (!this.entries || isErrorEnvelope(value)) return;
    const size = JSON.stringify(value).length || 1;
    if (size > this.maxEntryChars) return;
    this.entries.set(key, { value, storedAt: this.now() }, { ttl: ttlMs, size });
  }

  /** Drops one entry: for a result that could not be shaped after it was stored. */
  delete(key: string): void {
    this.entries?.delete(key);
  }

  /** Characters of JSON held now. */
  get chars(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  get size(): number {
    return this.entries?.size ?? 0;
  }
}

/** Path plus query sorted by name: the same request always has the same key. */
export function requestKey(path: string, query: Readonly<Record<string, string | number>>): string {
  const search = new URLSearchParams(
    Object.entries(query)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]): [string, string] => [k, String(v)]),
  );
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}
