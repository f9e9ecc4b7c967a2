/**
 * A response cache bounded by entries and by bytes of memory, with a time-to-live per cache class,
 * and a table of requests under way so that identical concurrent calls share one
 * upstream request. Large payloads would otherwise pile up: 500 answers of 5 MB each
 * exhausted the process's memory.
 */
import { LRUCache } from 'lru-cache';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
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
 * text deflated (level 1), whose size is known, rather than as parsed objects, which take
 * 3-5x their JSON in heap and cannot be measured. Market data pages deflate 5-13x (rows of
 * repeated field names), so 4 MiB holds about as much as 16 MiB of JSON text did, which
 * at the peak of 500 calls at once or of 10,000-row pages was a fifth of the bare SDK
 * server's whole resident memory.
 */
export const CACHE_MAX_BYTES = 4 * 1024 * 1024;
/**
 * One entry whose JSON is above this is not kept: the agent sees a trimmed result anyway,
 * and a repeat is rare. It is the API's own ceiling on a response (256 KiB), so only an
 * upstream without that ceiling sends pages over it; keeping its 10,000-row pages (0.75 MB
 * of JSON, deflated in about 10 ms each) held about 7 MiB more at their peak.
 */
export const CACHE_MAX_ENTRY_BYTES = 256 * 1024;
/**
 * Level 1 with a 4 KiB window and smaller hash tables: zlib's state for one deflate is 48 KiB
 * instead of its default 256 KiB, made and freed for every answer stored. Pages repeat their
 * field names within a few hundred bytes, so they deflate as well (a 10 kB page 7.3x against
 * 7.4x, a 250 kB one 8.6x against 8.1x); inflating needs no setting (a raw stream decodes with
 * any larger window).
 */
const DEFLATE = { level: constants.Z_BEST_SPEED, windowBits: 12, memLevel: 6 };
/** What an entry costs besides its bytes: the key, the record and the LRU's slots. */
const ENTRY_OVERHEAD_BYTES = 160;

export interface CacheLimits {
  maxBytes?: number;
  maxEntryBytes?: number;
}

interface StoredEntry {
  /** The JSON text deflated, in a buffer of its own (never a slice of a larger one). */
  readonly deflated: Buffer;
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
            sizeCalculation: (entry, key) => entry.deflated.byteLength + stringBytes(key) + ENTRY_OVERHEAD_BYTES,
            ttlAutopurge: false,
            // Entries expire on the client's clock (tests inject one), not the cache's own.
            perf: { now },
          })
        : undefined;
  }

  /** A fresh copy of the stored value: what a caller does with it never changes the cache. */
  get(key: string): CachedEntry<T> | undefined {
    const entry = this.entries?.get(key);
    return entry ? { value: JSON.parse(inflateRawSync(entry.deflated).toString('utf8')) as T, storedAt: entry.storedAt } : undefined;
  }

  /** Keeps `value` unless it is an error envelope or larger than the per-entry cap. */
  set(key: string, value: T, ttlMs: number): void {
    if (!this.entries || isErrorEnvelope(value)) return;
    const json = JSON.stringify(value);
    if (stringBytes(json) + stringBytes(key) + ENTRY_OVERHEAD_BYTES > this.maxEntryBytes) return;
    // Deflated here, at once: a page at the 256 KiB cap takes about 2 ms. In the thread pool,
    // 500 answers at once made as many zlib streams at once (about 256 KiB each, held by the
    // peak), and one at a time their texts waited in a queue that a fast upstream outran.
    const deflated = deflateRawSync(json, DEFLATE);
    // A small result is a view of zlib's output chunk: copied so that the entry holds only its own bytes.
    const own = Buffer.allocUnsafeSlow(deflated.byteLength);
    deflated.copy(own);
    const size = own.byteLength + stringBytes(key) + ENTRY_OVERHEAD_BYTES;
    this.entries.set(key, { deflated: own, storedAt: this.now() }, { ttl: ttlMs, size });
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
export function requestKey(path: string, query: Readonly<Record<string, string | number | readonly string[]>>): string {
  // A list the document explodes is one pair per value, in the order given.
  const search = new URLSearchParams(
    Object.entries(query)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([k, v]): [string, string][] => (typeof v === 'object' ? v.map((item): [string, string] => [k, item]) : [[k, String(v)]])),
  );
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}
