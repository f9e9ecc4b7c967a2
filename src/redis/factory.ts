/**
 * The account gate a process should use: shared on Redis when MARKET_DATA_REDIS_URL is
 * set (with the in-process gate as the fallback), the in-process gate alone otherwise.
 */
import type { Logger } from '../log.js';
import { createRedisCacheTier, type RedisCacheOptions, type RedisCacheTier } from './cache.js';
import type { AccountGate } from '../api/gate/account-gate.js';
import { RedisLink, slowRedisOverMs } from './connection.js';
import { RedisAccountGate } from './gate.js';
import { accountKeys, type AccountKeys } from './keys.js';
import { AccountMembers } from './members.js';
import { membersRecord } from './members-record.js';
import { partInForce } from './outage-part.js';
import { ResilientGate } from './resilient.js';

export interface AccountGateFactoryOptions {
  redisUrl?: string | undefined;
  apiKey: string;
  /** The in-process gate: the gate itself without Redis, the fallback with it. */
  fallback: AccountGate;
  log?: Pick<Logger, 'warn' | 'info' | 'debug'> | undefined;
  /** Redis key names (src/redis/team-keys.ts names the gate by account); by default all named by the key. */
  keys?: AccountKeys | undefined;
  /** Seals the cache tier's values (src/redis/sealed-values.ts). */
  seal?: RedisCacheOptions['seal'];
  /** A link to share with the cache tier; created (and closed with the gate) when absent. */
  link?: RedisLink | undefined;
  maxInFlight?: number;
  perWindow?: number;
  windowMs?: number;
  leaseMs?: number;
  probeMs?: number;
  /**
   * Creating the gate never waits on Redis: it starts on the fallback and moves to Redis
   * once Redis answers. Calls made within this long of creation wait for that, each for
   * at most what is left of it (default JOIN_WAIT_MS).
   */
  connectWaitMs?: number;
  /** How long the first attempt to reach Redis goes on, in the background, before regular probes take over. */
  joinAttemptMs?: number;
  /** What the account's entries in the cache tier may hold together (REDIS_CACHE_MAX_BYTES by default). */
  cacheMaxBytes?: number | undefined;
  /** The node's state directory (MARKET_DATA_CACHE_DIR): it keeps the account's process count for a start during an outage. */
  stateDir?: string | undefined;
  /** MARKET_DATA_EXPECTED_PROCESSES: the fewest processes each leaves room for while Redis is away. */
  expectedProcesses?: number | undefined;
  /** The calls' deadline (MARKET_DATA_DEADLINE_MS): a Redis slower than their share of it is left (slowRedisOverMs). */
  deadlineMs?: number | undefined;
}

function linkFor(options: AccountGateFactoryOptions & { redisUrl: string }): RedisLink {
  return new RedisLink({
    url: options.redisUrl,
    slowOverMs: options.deadlineMs === undefined ? undefined : slowRedisOverMs(options.deadlineMs),
  });
}

/**
 * A Redis that is up answers a local connection in a few milliseconds, and the first tool
 * call comes after initialize and tools/list: 150 ms puts such a process on Redis for its
 * first calls, while a Redis that is down or frozen costs at most one call 150 ms, once.
 */
export const JOIN_WAIT_MS = 150;

export function createAccountGate(options: AccountGateFactoryOptions): Promise<AccountGate> {
  if (!options.redisUrl) return Promise.resolve(options.fallback);
  const link = options.link ?? linkFor({ ...options, redisUrl: options.redisUrl });
  const keys = options.keys ?? accountKeys(options.apiKey);
  const shared = new RedisAccountGate({
    link,
    keys,
    closeLink: options.link === undefined,
    ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
    ...(options.perWindow === undefined ? {} : { perWindow: options.perWindow }),
    ...(options.windowMs === undefined ? {} : { windowMs: options.windowMs }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  });
  // Who else spends the account: while Redis is away, each process keeps to its part.
  const record = options.stateDir ? membersRecord(options.stateDir, keys.state) : undefined;
  const remembered = record?.read();
  const members = new AccountMembers({ redis: link, keys, ...(record ? { onCount: (n: number) => record.write(n) } : {}) });
  // In the background: start-up (and the host's initialize) never waits on Redis. Joining
  // includes the first beat (one round trip), so that a process on Redis knows who else is.
  const ready = (async () => {
    const answered =
      (await link.waitUntilReady(options.joinAttemptMs ?? 1000)) &&
      (await shared.ping().then(
        () => true,
        () => false,
      ));
    if (answered) await members.beat();
    else members.start();
    return answered;
  })();
  const outagePart = {
    inForce: () => partInForce({ seen: () => members.part(), remembered, expected: options.expectedProcesses }),
    close: () => members.close(),
  };
  return Promise.resolve(
    new ResilientGate(shared, options.fallback, {
      log: options.log,
      members: outagePart,
      join: { ready, waitMs: options.connectWaitMs ?? JOIN_WAIT_MS },
      ...(options.probeMs === undefined ? {} : { probeMs: options.probeMs }),
    }),
  );
}

export interface SharedAccount<T> {
  gate: AccountGate;
  /** The second cache tier; undefined without Redis (the in-process LRU is then the only one). */
  cache: RedisCacheTier<T> | undefined;
  /** The account's Redis link and key names, for what else shares the account across nodes (fair turns: src/team). */
  redis?: { link: RedisLink; keys: AccountKeys } | undefined;
  close(): Promise<void>;
}

/**
 * What the client needs to share an account through Redis: the gate and the cache tier
 * on one link (two connections per process). Without a URL: the fallback gate alone.
 */
export async function createSharedAccount<T>(options: AccountGateFactoryOptions): Promise<SharedAccount<T>> {
  if (!options.redisUrl) return { gate: options.fallback, cache: undefined, close: () => options.fallback.close() };
  const link = options.link ?? linkFor({ ...options, redisUrl: options.redisUrl });
  const gate = await createAccountGate({ ...options, link });
  const cache = createRedisCacheTier<T>({
    link,
    apiKey: options.apiKey,
    keys: options.keys,
    seal: options.seal,
    log: options.log,
    ...(options.cacheMaxBytes === undefined ? {} : { maxBytes: options.cacheMaxBytes }),
  });
  return {
    gate,
    cache,
    redis: { link, keys: options.keys ?? accountKeys(options.apiKey) },
    close: async () => {
      await gate.close();
      if (!options.link) await link.close();
    },
  };
}
