/**
 * A size-bounded response cache with a time-to-live per cache class, and a table of
 * requests under way so that identical concurrent calls share one upstream request.
 */
import { LRUCache } from 'lru-cache';
import type { CacheClass } from '../catalog/index.js';

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

interface Flight<T> {
  readonly controller: AbortController;
  waiters: number;
  readonly promise: Promise<T>;
}

export class ResponseCache<T extends object> {
  private readonly entries: LRUCache<string, CachedEntry<T>> | undefined;
  private readonly underWay = new Map<string, Flight<T>>();

  constructor(
    maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = maxEntries > 0 ? new LRUCache<string, CachedEntry<T>>({ max: maxEntries, ttlAutopurge: false }) : undefined;
  }

  get(key: string): CachedEntry<T> | undefined {
    return this.entries?.get(key);
  }

  set(key: string, value: T, ttlMs: number): void {
    this.entries?.set(key, { value, storedAt: this.now() }, { ttl: ttlMs });
  }

  /**
   * Joins the request under way for `key`, or starts it. Each caller may leave on its
   * own signal; the shared request is aborted only when every caller has left.
   */
  shared(key: string, start: (signal: AbortSignal) => Promise<T>, callerSignal: AbortSignal): { promise: Promise<T>; joined: boolean } {
    let flight = this.underWay.get(key);
    const joined = flight !== undefined;
    if (!flight) {
      const controller = new AbortController();
      const created: Flight<T> = { controller, waiters: 0, promise: start(controller.signal) };
      const forget = (): void => {
        if (this.underWay.get(key) === created) this.underWay.delete(key);
      };
      created.promise.then(forget, forget);
      this.underWay.set(key, created);
      flight = created;
    }
    const current = flight;
    current.waiters += 1;
    const promise = new Promise<T>((resolve, reject) => {
      const leave = (): void => {
        callerSignal.removeEventListener('abort', onAbort);
        current.waiters -= 1;
      };
      const onAbort = (): void => {
        leave();
        if (current.waiters === 0) current.controller.abort(callerSignal.reason);
        reject(callerSignal.reason instanceof Error ? callerSignal.reason : new Error('aborted'));
      };
      if (callerSignal.aborted) return onAbort();
      callerSignal.addEventListener('abort', onAbort, { once: true });
      current.promise.then(
        (value) => {
          leave();
          resolve(value);
        },
        (error: unknown) => {
          leave();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
    return { promise, joined };
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
