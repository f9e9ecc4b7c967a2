/**
 * The second cache tier, shared by every process of the account through Redis (the
 * in-process LRU stays the first). An entry holds the instant Redis stored it, so
 * `age_seconds` stays true in whichever process reads it. Identical calls in several
 * processes share one upstream request where it pays (a burst of one call; an on-demand
 * dataset answering 202 while it is built): one process leads under a lease, the others
 * wait for its completion message and read the result from the tier.
 *
 * Redis trouble never fails a call: a read misses, a write is skipped, and a shared
 * request becomes this process's own.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from '../log.js';
import { abortError } from '../api/errors.js';
import { accountKeys, requestTag, type AccountKeys } from './keys.js';
import { untilAborted } from './until-aborted.js';
import type { RedisCommander } from './scripts.js';

/** What the tier needs from a Redis link (RedisLink has it). */
export interface CacheLink extends RedisCommander {
  subscribe(channel: string, onMessage: (message: string) => void): Promise<void>;
}

export interface SharedEntry<T> {
  value: T;
  /** How long ago it was stored, by Redis's clock. */
  ageMs: number;
}

export interface SharedOutcome<T> extends SharedEntry<T> {
  /** upstream: this process sent the request; peer: another process did. */
  from: 'upstream' | 'peer';
}

/** What the account's entries may hold together in Redis, by default (the in-process tier holds 16 MB a process). */
export const REDIS_CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** One entry above this is not stored: the agent sees a trimmed result anyway, and a repeat is rare. */
export const REDIS_CACHE_MAX_ENTRY_BYTES = 1024 * 1024;
/**
 * The books (index and sizes) outlive the longest entry TTL (an answer that can no longer
 * change is kept up to a week: src/api/immutable-answers.ts), so they never outlive every entry by much.
 */
const BOOKS_TTL_MS = 8 * 24 * 60 * 60_000;

export interface RedisCacheOptions {
  /** A leader that dies gives up its lead after this long; a live one renews at a third. */
  flightLeaseMs?: number;
  /** The account's entries together; the oldest-ending go first. */
  maxBytes?: number;
  /** Larger entries are not stored (at most an eighth of maxBytes, so one never empties the tier). */
  maxEntryBytes?: number;
  log?: Pick<Logger, 'debug'> | undefined;
  /** Seals values before they are stored and opens them when read (src/redis/sealed-values.ts); an entry that does not open is a miss. */
  seal?: { seal(plain: string, name: string): string; open(sealed: string, name: string): string | undefined } | undefined;
}

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
/**
 * KEYS: entry, index (tag by expiry instant), sizes (tag to bytes, and the '#total'),
 * ARGV: json, ttl ms, tag, max total bytes, bookkeeping ttl ms. The tier's bytes stay
 * within the total: entries that expired are struck from the books, then the entries
 * closest to their end go first. Returns the bytes held after.
 */
const STORE = `${NOW}
local size = #ARGV[1]
local function drop(tag, alsoKey)
  local held = tonumber(redis.call('HGET', KEYS[3], tag)) or 0
  redis.call('HDEL', KEYS[3], tag)
  redis.call('ZREM', KEYS[2], tag)
  if held > 0 then redis.call('HINCRBY', KEYS[3], '#total', -held) end
  if alsoKey then redis.call('DEL', alsoKey) end
end
for _, tag in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)) do drop(tag, nil) end
drop(ARGV[3], nil)
local prefix = string.sub(KEYS[1], 1, #KEYS[1] - #ARGV[3])
local max = tonumber(ARGV[4])
while (tonumber(redis.call('HGET', KEYS[3], '#total')) or 0) + size > max do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #first == 0 then break end
  drop(first[1], prefix .. first[1])
end
redis.call('HSET', KEYS[1], 'at', now, 'v', ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[3])
redis.call('HSET', KEYS[3], ARGV[3], size)
local total = redis.call('HINCRBY', KEYS[3], '#total', size)
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[5]))
redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[5]))
return total`;
/** KEYS: entry. Returns {age ms, json} or nil. */
const LOAD = `${NOW}
local e = redis.call('HMGET', KEYS[1], 'at', 'v')
if not e[2] then return nil end
return {now - tonumber(e[1]), e[2]}`;
/** KEYS: lead. ARGV: token, ms (renew) or '' (give up). Only the holder of the lead may touch it. */
const LEAD = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then return redis.call('DEL', KEYS[1]) end
return redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))`;

/** What the client needs of a second cache tier; the Redis one is the implementation. */
export interface SharedCacheTier<T> {
  readThrough(
    requestKey: string,
    ttlMs: number,
    send: () => Promise<T>,
    options: ReadThroughOptions<T>,
  ): Promise<{ value: T; storedAt: number; fromPeer: boolean }>;
}

export interface ReadThroughOptions<T> {
  signal: AbortSignal;
  now?: () => number;
  cacheable?: (value: T) => boolean;
  /** The TTL of this value when longer than the request's: an answer that can no longer change. */
  ttlFor?: (value: T) => number;
}

/** One shared request across processes: the lease's key, this process's claim on it, and the tag its completion is published under. */
interface Flight {
  readonly leadKey: string;
  readonly token: string;
  readonly tag: string;
}

export class RedisCacheTier<T> implements SharedCacheTier<T> {
  private readonly flightLeaseMs: number;
  private readonly maxBytes: number;
  private readonly maxEntryBytes: number;
  private readonly waiting = new Map<string, Set<(message: string) => void>>();
  private subscribed: Promise<void> | undefined;

  constructor(
    private readonly link: CacheLink,
    private readonly keys: AccountKeys,
    private readonly options: RedisCacheOptions = {},
  ) {
    this.flightLeaseMs = options.flightLeaseMs ?? 10_000;
    this.maxBytes = options.maxBytes ?? REDIS_CACHE_MAX_BYTES;
    this.maxEntryBytes = Math.min(options.maxEntryBytes ?? REDIS_CACHE_MAX_ENTRY_BYTES, Math.floor(this.maxBytes / 8));
  }

  /** The entry for `requestKey` (path plus sorted query), or undefined (also when Redis is away). */
  async get(requestKey: string, signal?: AbortSignal): Promise<SharedEntry<T> | undefined> {
    try {
      const reply = await untilAborted(this.eval(LOAD, [this.entryKey(requestKey)], []), signal);
      if (!Array.isArray(reply) || reply.length < 2) return undefined;
      const [age, stored] = reply as [unknown, unknown];
      const json = this.options.seal ? this.options.seal.open(String(stored), this.entryKey(requestKey)) : String(stored);
      if (json === undefined) return undefined;
      return { value: JSON.parse(json) as T, ageMs: Math.max(0, Number(age)) };
    } catch (error) {
      this.options.log?.debug({ redis: String(error) }, 'redis cache read skipped');
      return undefined;
    }
  }

  /** Stores a 200's result for its cache class's TTL, stamped with Redis's clock. */
  async set(requestKey: string, value: T, ttlMs: number, signal?: AbortSignal): Promise<void> {
    if (ttlMs <= 0) return;
    const json = JSON.stringify(value);
    if (Buffer.byteLength(json) > this.maxEntryBytes) {
      this.options.log?.debug({ bytes: Buffer.byteLength(json) }, 'redis cache write skipped: entry too large');
      return;
    }
    const tag = requestTag(requestKey);
    try {
      const name = this.entryKey(requestKey);
      const stored = this.options.seal ? this.options.seal.seal(json, name) : json;
      await untilAborted(
        this.eval(STORE, [name, this.keys.cacheIndex, this.keys.cacheSizes], [stored, Math.round(ttlMs), tag, this.maxBytes, BOOKS_TTL_MS]),
        signal,
      );
    } catch (error) {
      this.options.log?.debug({ redis: String(error) }, 'redis cache write skipped');
    }
  }

  /**
   * One upstream request for identical calls across processes. `start` sends the request
   * (with its retries and 202 polls) and says whether its result may be cached; the lead
   * stores it before telling the others, who then read it from the tier.
   */
  async shared(
    requestKey: string,
    ttlMs: number,
    start: () => Promise<{ value: T; cacheable: boolean; ttlMs?: number }>,
    options: { signal: AbortSignal },
  ): Promise<SharedOutcome<T>> {
    const tag = requestTag(requestKey);
    const flight: Flight = { leadKey: `${this.keys.flight}${tag}`, token: randomUUID(), tag };
    const alone = (): Promise<SharedOutcome<T>> => this.sendAlone(requestKey, ttlMs, start, options.signal);
    try {
      // Subscribing to a Redis that stopped answering must not hold the call: the link
      // bounds it by its command timeout, and the call's own signal bounds it sooner.
      await untilAborted(this.listen(), options.signal);
    } catch {
      if (options.signal.aborted) throw abortError(options.signal);
      return alone();
    }
    for (;;) {
      if (options.signal.aborted) throw abortError(options.signal);
      // Listen before trying to lead: a completion after a failed attempt is not missed.
      const done = this.nextMessage(tag, options.signal);
      const hit = await this.get(requestKey, options.signal);
      if (hit) {
        done.cancel();
        return { ...hit, from: 'peer' };
      }
      let claim: { lead: boolean; leftMs: number };
      try {
        claim = await this.claimLead(flight, options.signal);
      } catch {
        done.cancel();
        if (options.signal.aborted) throw abortError(options.signal);
        return alone();
      }
      if (claim.lead) {
        done.cancel();
        return this.leadUnlessStored(requestKey, flight, alone, options.signal);
      }
      if (claim.leftMs <= 0) {
        done.cancel();
        continue;
      }
      const message = await done.within(claim.leftMs + 50);
      if (message === 'failed') return alone();
    }
  }

  /** The request sent by this process alone, its result stored when cacheable. */
  private async sendAlone(
    requestKey: string,
    ttlMs: number,
    start: () => Promise<{ value: T; cacheable: boolean; ttlMs?: number }>,
    signal: AbortSignal,
  ): Promise<SharedOutcome<T>> {
    const result = await start();
    // The answer is in hand: storing it waits on Redis no longer than the call may.
    if (result.cacheable) await this.set(requestKey, result.value, result.ttlMs ?? ttlMs, signal);
    return { value: result.value, ageMs: 0, from: 'upstream' };
  }

  /** Tries to become the flight's lead: whether it did, else how long the current lead's lease has left. Throws when Redis does not answer. */
  private async claimLead(flight: Flight, signal: AbortSignal): Promise<{ lead: boolean; leftMs: number }> {
    const { leadKey, token } = flight;
    const lead =
      (await untilAborted(this.link.sendCommand(['SET', leadKey, token, 'NX', 'PX', String(this.flightLeaseMs)]), signal)) === 'OK';
    const leftMs = lead ? 0 : Number(await untilAborted(this.link.sendCommand(['PTTL', leadKey]), signal));
    return { lead, leftMs };
  }

  /** The previous lead may have stored its result and let go between our read and our SET: then its entry, else this process leads. */
  private async leadUnlessStored(
    requestKey: string,
    flight: Flight,
    alone: () => Promise<SharedOutcome<T>>,
    signal: AbortSignal,
  ): Promise<SharedOutcome<T>> {
    const stored = await this.get(requestKey, signal);
    if (stored) {
      await this.eval(LEAD, [flight.leadKey], [flight.token, '']).catch(() => undefined);
      return { ...stored, from: 'peer' };
    }
    return this.lead(flight.leadKey, flight.token, flight.tag, alone);
  }

  /**
   * For the client, after its in-process LRU missed: the tier's entry, or one upstream
   * request shared with the account's other processes (`send` resolves with a 200's
   * result and throws otherwise). `storedAt` is on this process's clock, so age_seconds
   * is right whichever process stored the entry.
   */
  async readThrough(
    requestKey: string,
    ttlMs: number,
    send: () => Promise<T>,
    options: ReadThroughOptions<T>,
  ): Promise<{ value: T; storedAt: number; fromPeer: boolean }> {
    const now = options.now ?? Date.now;
    const outcome = await this.shared(
      requestKey,
      ttlMs,
      async () => {
        const value = await send();
        return { value, cacheable: ttlMs > 0 && (options.cacheable?.(value) ?? true), ttlMs: options.ttlFor?.(value) ?? ttlMs };
      },
      options,
    );
    return { value: outcome.value, storedAt: now() - outcome.ageMs, fromPeer: outcome.from === 'peer' };
  }

  private async lead(leadKey: string, token: string, tag: string, alone: () => Promise<SharedOutcome<T>>): Promise<SharedOutcome<T>> {
    const renew = setInterval(
      () => void this.eval(LEAD, [leadKey], [token, this.flightLeaseMs]).catch(() => undefined),
      Math.max(50, Math.floor(this.flightLeaseMs / 3)),
    );
    renew.unref();
    let outcome: 'ok' | 'failed' = 'failed';
    try {
      const result = await alone();
      outcome = 'ok';
      return result;
    } finally {
      clearInterval(renew);
      // The caller has its answer: letting go and telling the others happen without it (the
      // result, when cacheable, is already stored), so a Redis that stops now costs it nothing.
      void this.eval(LEAD, [leadKey], [token, ''])
        .catch(() => undefined)
        .then(() => this.link.sendCommand(['PUBLISH', this.keys.flightDone, `${tag} ${outcome}`]))
        .catch(() => undefined);
    }
  }

  private listen(): Promise<void> {
    this.subscribed ??= this.link
      .subscribe(this.keys.flightDone, (message) => {
        const [tag, outcome] = message.split(' ');
        for (const wake of this.waiting.get(tag ?? '') ?? []) wake(outcome ?? 'failed');
      })
      .catch((error: unknown) => {
        this.subscribed = undefined;
        throw error;
      });
    return this.subscribed;
  }

  /** The next completion message for `tag`; `within` resolves 'timeout' when none comes in time. */
  private nextMessage(tag: string, signal: AbortSignal): { within: (ms: number) => Promise<string>; cancel: () => void } {
    let wake: ((message: string) => void) | undefined;
    const arrived = new Promise<string>((resolve) => (wake = resolve));
    const listener = (message: string): void => wake?.(message);
    const set = this.waiting.get(tag) ?? new Set();
    set.add(listener);
    this.waiting.set(tag, set);
    const cancel = (): void => {
      set.delete(listener);
      if (set.size === 0) this.waiting.delete(tag);
    };
    return {
      cancel,
      within: async (ms) => {
        let timer: NodeJS.Timeout | undefined;
        const onAbort = (): void => wake?.('aborted');
        signal.addEventListener('abort', onAbort, { once: true });
        const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
        try {
          return await Promise.race([arrived, timeout]);
        } finally {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          cancel();
        }
      },
    };
  }

  private entryKey(requestKey: string): string {
    return `${this.keys.cache}${requestTag(requestKey)}`;
  }

  private async eval(source: string, keys: string[], args: (string | number)[]): Promise<unknown> {
    const sha = scriptSha(source);
    const tail = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await this.link.sendCommand(['EVALSHA', sha, ...tail]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
      return this.link.sendCommand(['EVAL', source, ...tail]);
    }
  }
}

/** The tier for the account behind `apiKey`, on a link the process shares with its account gate. */
export function createRedisCacheTier<T>(
  options: { link: CacheLink; apiKey: string; keys?: AccountKeys | undefined } & RedisCacheOptions,
): RedisCacheTier<T> {
  return new RedisCacheTier<T>(options.link, options.keys ?? accountKeys(options.apiKey), options);
}

const shas = new Map<string, string>();
function scriptSha(source: string): string {
  let sha = shas.get(source);
  if (!sha) shas.set(source, (sha = createHash('sha1').update(source).digest('hex')));
  return sha;
}
