/**
 * Where an account's shared state lives in Redis. Every key of one account carries the
 * same hash tag, so the gate's scripts (which touch several keys at once) run on Redis
 * Cluster too. The tag is a hash of the API key: the key itself never reaches Redis.
 */
import { createHash } from 'node:crypto';

export interface AccountKeys {
  /** The server's rate window as this account last saw it. */
  readonly window: string;
  /** In-flight leases: member = lease id, score = expiry (Redis time, ms). */
  readonly leases: string;
  /** Retry-After pause, quota latch and view, the shared in-flight cap. */
  readonly state: string;
  /** Requests each process has queued: field = process id, value = `count:until` (ms). */
  readonly queues: string;
  /** Remembered SERVICE_DISABLED capabilities: field = capability, value = until (ms). */
  readonly disabled: string;
  /** Pub/sub channel: a slot freed, a window moved, a pause or latch was set. */
  readonly wake: string;
  /** Prefix of the second cache tier and of shared-request leases. */
  readonly cache: string;
  /** The cache tier's books: entry tags by expiry instant, and bytes per tag plus their total. */
  readonly cacheIndex: string;
  readonly cacheSizes: string;
  readonly flight: string;
  /** Pub/sub channel: a shared request finished. */
  readonly flightDone: string;
}

/** A short, stable, one-way name for the account behind `apiKey`. */
export function accountTag(apiKey: string): string {
  return createHash('sha256').update(`market-data-mcp/account/${apiKey}`).digest('hex').slice(0, 32);
}

export function accountKeys(apiKey: string, prefix = 'mdmcp'): AccountKeys {
  const base = `${prefix}:{${accountTag(apiKey)}}`;
  return {
    window: `${base}:window`,
    leases: `${base}:leases`,
    state: `${base}:state`,
    queues: `${base}:queues`,
    disabled: `${base}:disabled`,
    wake: `${base}:wake`,
    cache: `${base}:cache:`,
    cacheIndex: `${base}:cache-index`,
    cacheSizes: `${base}:cache-sizes`,
    flight: `${base}:flight:`,
    flightDone: `${base}:flight-done`,
  };
}

/** Cache and flight keys name a request by its hash: keys stay short, and no query text is stored in key names. */
export function requestTag(requestKey: string): string {
  return createHash('sha256').update(requestKey).digest('hex').slice(0, 40);
}
