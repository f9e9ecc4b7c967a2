/**
 * In-flight leases across processes: the cap holds between processes, and a process
 * that dies gives its slots back within the lease time.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { ApiError } from '../../src/api/errors.js';
import type { SendPermit } from '../../src/api/gate/account-gate.js';
import { RedisLink } from '../../src/redis/connection.js';
import { RedisAccountGate } from '../../src/redis/gate.js';
import { accountKeys } from '../../src/redis/keys.js';
import { startDriver, stopDrivers } from '../helpers/redis-processes.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';
import { eventually } from '../helpers/wait.js';

const LEASE_MS = 1500;

describe('in-flight leases on Redis', () => {
  let redis: ThrowawayRedis | undefined;
  const links: RedisLink[] = [];
  const gateOn = (apiKey: string): RedisAccountGate => {
    assert.ok(redis);
    const link = new RedisLink({ url: redis.url });
    links.push(link);
    return new RedisAccountGate({ link, keys: accountKeys(apiKey), leaseMs: LEASE_MS });
  };
  const ask = (gate: RedisAccountGate, withinMs: number): Promise<SendPermit> =>
    gate.acquire({ free: false, deadline: Date.now() + withinMs, signal: new AbortController().signal });

  before(async () => {
    redis = await ThrowawayRedis.start().catch(() => undefined);
  });
  after(async () => {
    await Promise.all(links.map((l) => l.close()));
    stopDrivers();
    await redis?.kill();
  });

  redisTest('the cap holds between two processes: the sixth permit waits for a release elsewhere', {}, async () => {
    const a = gateOn('key-cap-test-1');
    const b = gateOn('key-cap-test-1');
    assert.deepEqual(
      await Promise.all(links.map((l) => l.waitUntilReady(5000))),
      links.map(() => true),
    );
    await Promise.all([a.ping(), b.ping()]);
    const held = await Promise.all([ask(a, 2000), ask(a, 2000), ask(a, 2000), ask(b, 2000), ask(b, 2000)]);
    let sixthGranted = false;
    const sixth = ask(b, 5000).then((permit) => {
      sixthGranted = true;
      return permit;
    });
    await eventually(async () => (await b.view()).queued === 1, 'the sixth request queued at the gate');
    assert.equal(sixthGranted, false, 'five are in flight for the account: the sixth waits');
    held[0]?.release({ status: 200 });
    (await sixth).release({ status: 200 });
    assert.equal(sixthGranted, true);
    for (const permit of held.slice(1)) permit.release({ status: 200 });
    await Promise.all([a.close(), b.close()]);
  });

  redisTest('a killed process gives its slots back within the lease time', { timeout: 30_000 }, async () => {
    assert.ok(redis);
    const holder = startDriver({
      mode: 'hold',
      hold: 5,
      redisUrl: redis.url,
      simUrl: 'http://127.0.0.1:1',
      apiKey: 'key-lease-test-1',
      path: '/',
      requests: 0,
      concurrency: 0,
      deadlineMs: 0,
      leaseMs: LEASE_MS,
    });
    const held = await holder.next((e) => 'held' in e);
    assert.equal(held['mode'], 'redis');
    holder.kill();
    const killedAt = Date.now();
    const gate = gateOn('key-lease-test-1');
    assert.ok(await links.at(-1)?.waitUntilReady(5000));
    await gate.ping();
    const early = await ask(gate, 200).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(early instanceof ApiError && early.code === 'RATE_LIMITED', 'right after the kill its five slots are still leased');
    // All five come back before the lease has run out (plus the pump's wake-up margin).
    const deadline = killedAt + LEASE_MS + 500;
    const permits = await Promise.all(
      Array.from({ length: 5 }, () => gate.acquire({ free: false, deadline, signal: new AbortController().signal })),
    );
    assert.ok(Date.now() <= deadline);
    for (const permit of permits) permit.release({ status: 200 });
    await gate.close();
  });
});
