/**
 * A response cache bounded by entries and by bytes of memory, with a time-to-live per cache class,
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

/**
 * What all entries together may hold, in bytes of memory. Entries are kept as their JSON
 * text, whose size in memory is known (a byte a character, two when any character is
 * outside Latin-1), rather than as parsed objects, which take 3-5x their JSON in heap and
 * cannot be measured: a cap counted in characters of JSON held ~70 MiB after a soak.
 */
export const CACHE_MAX_BYTES = 16 * 1024 * 1024;
/** One entry above this is not kept: the agent sees a trimmed result anyway, and a repeat is rare. */
export const CACHE_MAX_ENTRY_BYTES = 1024 * 1024;
/** What an entry costs besides its text: the key, the record and the LRU's slots. */
const ENTRY_OVERHEAD_BYTES = 160;

export interface CacheLimits {
  maxBytes?: number;
  maxEntryBytes?: number;
}

interface StoredEntry {
  readonly json: string;
  readonly storedAt: number;
}

/** Bytes a string takes in V8's heap: one a character, or two once any is outside Latin-1. */
export function stringBytes(text: string): number {
  // eslint-disable-next-line no-control-regex
  return /[^\u0000-\u00ff]/.test(text) ? text.length * 2 : text.length;
}

/** An error envelope (`{error: {...}}`) is never data, whatever the status it came with. */
export function isErrorEnvelope(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const data = (value as { data?: unknown }).data;
  return isEnvelopeShaped(data === undefined ? value : data);
}

export class ResponseCache<T extends object> {
  private readonly entries: LRUCache<string, StoredEntry> | undefined;
  private readonly maxEntryBytes: number;

  constructor(
    maxEntries: number,
    private readonly now: () => number = Date.now,
    limits: CacheLimits = {},
  ) {
    this.maxEntryBytes = limits.maxEntryBytes ?? CACHE_MAX_ENTRY_BYTES;
    this.entries =
      maxEntries > 0
        ? new LRUCache<string, StoredEntry>({
            max: maxEntries,
            maxSize: limits.maxBytes ?? CACHE_MAX_BYTES,
            maxEntrySize: this.maxEntryBytes,
            // Measured once, when stored; set() passes the size it already computed.
            sizeCalculation: (entry, key) => stringBytes(entry.json) + stringBytes(key) + ENTRY_OVERHEAD_BYTES,
            ttlAutopurge: false,
          })
        : undefined;
  }

  /** A fresh copy of the stored value: what a caller does with it never changes the cache. */
  get(key: string): CachedEntry<T> | undefined {
    const entry = this.entries?.get(key);
    return entry ? { value: JSON.parse(entry.json) as T, storedAt: entry.storedAt } : undefined;
  }

  /** Keeps `value` unless it is an error envelope or larger than the per-entry cap. */
  set(key: string, value: T, ttlMs: number): void {
    if (!this.entries || isErrorEnvelope(value)) return;
    const json = JSON.stringify(value);
    const size = stringBytes(json) + stringBytes(key) + ENTRY_OVERHEAD_BYTES;
    if (size > this.maxEntryBytes) return;
    this.entries.set(key, { json, storedAt: this.now() }, { ttl: ttlMs, size });
  }

  /** Milliseconds `key` stays served from here, or 0 when it is not held. */
  remainingMs(key: string): number {
    if (!this.entries?.has(key)) return 0;
    return this.entries.getRemainingTTL(key);
  }

  /** Drops one entry: for a result that could not be shaped after it was stored. */
  delete(key: string): void {
    this.entries?.delete(key);
  }

  /** Bytes held now. */
  get bytes(): number {
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
