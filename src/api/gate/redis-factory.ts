/**
 * The account gate a process should use: shared on Redis when MARKET_DATA_REDIS_URL is
 * set (with the in-process gate as the fallback), the in-process gate alone otherwise.
 */
import type { Logger } from '../../log.js';
import type { AccountGate } from './account-gate.js';
import { RedisLink } from './redis-connection.js';
import { RedisAccountGate } from './redis-gate.js';
import { accountKeys } from './redis-keys.js';
import { ResilientGate } from './redis-resilient.js';

export interface AccountGateFactoryOptions {
  redisUrl?: string | undefined;
  apiKey: string;
  /** The in-process gate: the gate itself without Redis, the fallback with it. */
  fallback: AccountGate;
  log?: Pick<Logger, 'warn' | 'info'> | undefined;
  /** A link to share with the cache tier; created (and closed with the gate) when absent. */
  link?: RedisLink | undefined;
  maxInFlight?: number;
  perWindow?: number;
  windowMs?: number;
  leaseMs?: number;
  probeMs?: number;
  /** How long to wait at start for Redis before starting on the fallback. */
  connectWaitMs?: number;
}

export async function createAccountGate(options: AccountGateFactoryOptions): Promise<AccountGate> {
  if (!options.redisUrl) return options.fallback;
  const link = options.link ?? new RedisLink({ url: options.redisUrl });
  const shared = new RedisAccountGate({
    link,
    keys: accountKeys(options.apiKey),
    closeLink: options.link === undefined,
    ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
    ...(options.perWindow === undefined ? {} : { perWindow: options.perWindow }),
    ...(options.windowMs === undefined ? {} : { windowMs: options.windowMs }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
  });
  const reachable =
    (await link.waitUntilReady(options.connectWaitMs ?? 1000)) &&
    (await shared.ping().then(
      () => true,
      () => false,
    ));
  return new ResilientGate(shared, options.fallback, {
    log: options.log,
    startDown: !reachable,
    ...(options.probeMs === undefined ? {} : { probeMs: options.probeMs }),
  });
}
