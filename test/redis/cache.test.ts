/**
 * The second cache tier on Redis: a result one process fetched serves another without an
 * upstream request, with its true age; identical calls in several processes share one
 * upstream request, even while an on-demand dataset answers 202.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { createRedisCacheTier } from '../../src/redis/cache.js';
import { RedisLink } from '../../src/redis/connection.js';
import { createSharedAccount } from '../../src/redis/factory.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { StandInGate } from '../helpers/redis-local-gate.js';
import type { DriverSettings } from '../helpers/redis-driver.js';
import { startDriver, stopDrivers } from '../helpers/redis-processes.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';
import { eventually } from '../helpers/wait.js';

describe('the Redis cache tier across processes', () => {
  let redis: ThrowawayRedis | undefined;
  let sim: RunningSimulator | undefined;
  before(async () => {
    redis = await ThrowawayRedis.start().catch(() => undefined);
    sim = await startSimulator({ materializationMs: 2500 });
  });
  after(async () => {
    await sim?.close();
    stopDrivers();
    await redis?.kill();
  });
  const settings = (path: string, apiKey = 'sim-live-key'): DriverSettings => ({
    mode: 'cache',
    redisUrl: redis?.url ?? '',
    simUrl: sim?.url ?? '',
    apiKey,
    path,
    requests: 1,
    concurrency: 1,
    deadlineMs: 20_000,
    ttlMs: 60_000,
  });
  const cachedEvent = (d: ReturnType<typeof startDriver>): Promise<Record<string, unknown>> => d.next((e) => e['cached'] === true);

  redisTest('a result cached by one process serves another without an upstream request, with its true age', {}, async () => {
    assert.ok(sim);
    const path = '/v1/derived/dealer-gex/QQQ/history';
    const sent = (): number => sim?.api.requests.filter((r) => r.path === path.split('?')[0]).length ?? 0;
    const first = await cachedEvent(startDriver(settings(path)));
    assert.equal(first['from'], 'upstream');
    assert.equal(sent(), 1);
    // time passes: the answer's age is what is tested, and it grows only with time (another process reads it).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = await cachedEvent(startDriver(settings(path)));
    assert.equal(second['from'], 'peer', 'the second process read the first one’s result');
    assert.equal(second['digest'], first['digest']);
    assert.ok(Number(second['ageMs']) >= 1100, `age_seconds counts from when it was stored: ${String(second['ageMs'])} ms`);
    assert.equal(sent(), 1, 'no second upstream request');

    const otherAccount = await cachedEvent(startDriver(settings(path, 'sim-admin-key')));
    assert.equal(otherAccount['from'], 'upstream', 'another account never reads this account’s cache');
  });

  redisTest(
    'three processes asking for one on-demand dataset (202 while built) share one upstream request',
    { timeout: 30_000 },
    async () => {
      assert.ok(sim);
      const path = '/v1/fundamentals/fundamental-breakdown/AAPL';
      const drivers = Array.from({ length: 3 }, () => startDriver(settings(path)));
      const events = await Promise.all(drivers.map(cachedEvent));
      assert.deepEqual(events.map((e) => e['from']).sort(), ['peer', 'peer', 'upstream']);
      assert.equal(new Set(events.map((e) => e['digest'])).size, 1, 'all three got the same data');
      const upstream = sim.api.requests.filter((r) => r.path === path);
      assert.equal(upstream.filter((r) => r.status === 200).length, 1, 'one 200: the lead’s');
      const polls = upstream.filter((r) => r.status === 202).length;
      assert.ok(polls >= 1 && polls <= 3, `the dataset was being built, and only the lead polled: ${polls} answers 202`);
    },
  );

  redisTest('createSharedAccount: one link for the gate and the tier; without a URL, the in-process gate alone', {}, async () => {
    const fallback = new StandInGate(5);
    const none = await createSharedAccount<{ n: number }>({ apiKey: 'key-shared-account-1', fallback });
    assert.equal(none.gate, fallback);
    assert.equal(none.cache, undefined);
    const shared = await createSharedAccount<{ n: number }>({ redisUrl: redis?.url, apiKey: 'key-shared-account-1', fallback });
    try {
      // Start-up never waits on Redis: the gate joins it once the link is up (later on a busy machine).
      await eventually(async () => (await shared.gate.view()).mode === 'redis', 'the shared gate to join Redis');
      await shared.cache?.set('/v1/x', { n: 1 }, 10_000);
      assert.deepEqual((await shared.cache?.get('/v1/x'))?.value, { n: 1 });
      assert.equal(await shared.cache?.get('/v1/y'), undefined);
    } finally {
      await shared.close();
    }
  });

  redisTest('readThrough, as the client calls it: concurrent identical calls in two processes send once', {}, async () => {
    assert.ok(redis);
    const links = [new RedisLink({ url: redis.url }), new RedisLink({ url: redis.url })];
    try {
      assert.deepEqual(await Promise.all(links.map((l) => l.waitUntilReady(5000))), [true, true]);
      const [a, b] = links.map((link) => createRedisCacheTier<{ rows: number[] }>({ link, apiKey: 'key-read-through-1' }));
      assert.ok(a && b);
      let sent = 0;
      const send = async (): Promise<{ rows: number[] }> => {
        sent += 1;
        // time passes: the upstream's latency, so the two readers overlap.
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { rows: [1, 2, 3] };
      };
      const signal = new AbortController().signal;
      const [first, second] = await Promise.all([
        a.readThrough('/v1/x?limit=3', 30_000, send, { signal }),
        b.readThrough('/v1/x?limit=3', 30_000, send, { signal }),
      ]);
      assert.equal(sent, 1, 'one upstream request for both');
      assert.deepEqual(first.value, second.value);
      assert.equal([first.fromPeer, second.fromPeer].filter(Boolean).length, 1);
      assert.ok(first.storedAt <= Date.now() && second.storedAt <= Date.now());

      const failing = (): Promise<{ rows: number[] }> => Promise.reject(new Error('404'));
      await assert.rejects(a.readThrough('/v1/missing', 30_000, failing, { signal }), /404/);
      assert.equal(await b.get('/v1/missing'), undefined, 'failures are not cached');
    } finally {
      await Promise.all(links.map((l) => l.close()));
    }
  });
});
