/**
 * What one process learns, every process of the account knows: the window aligned to
 * the server's headers, a window of its own when the server sends none, the pause, the
 * quota latch that lets free requests through, disabled capabilities, the shrunk cap.
 * Two gates on two connections stand for two processes.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { ApiError } from '../../src/api/errors.js';
import type { PermitRequest } from '../../src/api/gate/account-gate.js';
import { RedisLink } from '../../src/redis/connection.js';
import { RedisAccountGate, type RedisGateOptions } from '../../src/redis/gate.js';
import { accountKeys } from '../../src/redis/keys.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';
import { eventually } from '../helpers/wait.js';

describe('account state shared on Redis', () => {
  let redis: ThrowawayRedis | undefined;
  const links: RedisLink[] = [];
  let serial = 0;
  before(async () => {
    redis = await ThrowawayRedis.start().catch(() => undefined);
  });
  after(async () => {
    await Promise.all(links.map((l) => l.close()));
    await redis?.kill();
  });

  /** Two "processes" of one fresh account. */
  const twoProcesses = async (options: Partial<RedisGateOptions> = {}): Promise<[RedisAccountGate, RedisAccountGate, string]> => {
    assert.ok(redis);
    const apiKey = `test-key-${(serial += 1)}-secret`;
    const make = async (): Promise<RedisAccountGate> => {
      const link = new RedisLink({ url: redis?.url ?? '' });
      links.push(link);
      assert.ok(await link.waitUntilReady(5000));
      const gate = new RedisAccountGate({ link, keys: accountKeys(apiKey), ...options });
      await gate.ping();
      return gate;
    };
    return [await make(), await make(), apiKey];
  };
  const req = (withinMs: number, free = false): PermitRequest => ({
    free,
    deadline: Date.now() + withinMs,
    signal: new AbortController().signal,
  });
  const refusal = async (promise: Promise<unknown>): Promise<ApiError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof ApiError, `expected a refusal, got ${String(error)}`);
    return error;
  };

  redisTest('the window follows the server headers one process saw; a turn past the deadline is refused at once', {}, async () => {
    const [a, b] = await twoProcesses();
    const permit = await a.acquire(req(1000));
    permit.release({ status: 200, headers: { rateLimit: 10, rateRemaining: 2, rateResetAt: Date.now() + 30_000 } });
    await eventually(async () => (await b.view()).rate_limit_per_window === 10, 'the other process to see the window the first learnt');
    const view = await b.view();
    assert.equal(view.rate_limit_per_window, 10);
    assert.equal(view.rate_remaining, 2, 'the other process counts what the server counted');
    const resetsIn = Date.parse(view.rate_window_resets_at ?? '') - Date.now();
    assert.ok(resetsIn > 28_000 && resetsIn <= 30_000, `resets when the server said: in ${resetsIn} ms`);

    (await b.acquire(req(1000))).release({ status: 200 });
    (await b.acquire(req(1000))).release({ status: 200 });
    const deadline = Date.now() + 5000;
    const late = await refusal(b.acquire({ free: false, deadline, signal: new AbortController().signal }));
    assert.equal(late.code, 'RATE_LIMITED');
    assert.equal(late.recoverable, true);
    assert.ok(Date.now() < deadline, 'refused at once, not at the deadline');
    assert.ok((late.retryAfterSeconds ?? 0) >= 29 && (late.retryAfterSeconds ?? 0) <= 31, `retry after ${late.retryAfterSeconds} s`);
  });

  redisTest('without rate headers a window of its own opens and rolls: it never stops for good', { timeout: 20_000 }, async () => {
    const [a] = await twoProcesses({ perWindow: 3, windowMs: 400 });
    for (let i = 0; i < 10; i += 1) (await a.acquire(req(5000))).release({ status: 200 });
    const view = await a.view();
    assert.equal(view.rate_limit_per_window, 3);
  });

  redisTest('a Retry-After pause set by one process holds the other', {}, async () => {
    const [a, b] = await twoProcesses();
    a.pause(Date.now() + 3000);
    await eventually(async () => (await b.view()).paused_until !== null, 'the pause to reach the other process');
    const held = await refusal(b.acquire(req(500)));
    assert.equal(held.code, 'RATE_LIMITED');
    assert.ok((held.retryAfterSeconds ?? 0) >= 2);
    assert.notEqual((await b.view()).paused_until, null);
  });

  redisTest('the quota latch refuses data requests everywhere and lets free ones through', {}, async () => {
    const [a, b] = await twoProcesses();
    a.latchQuota(Date.now() + 3_600_000);
    await eventually(async () => (await b.view()).quota_exhausted === true, 'the latch to reach the other process');
    const refused = await refusal(b.acquire(req(1000)));
    assert.equal(refused.code, 'QUOTA_EXHAUSTED');
    assert.equal(refused.local, true, 'no request was sent');
    (await b.acquire(req(1000, true))).release({ status: 200 });
    const view = await b.view();
    assert.equal(view.quota_exhausted, true);
    assert.equal(view.quota_remaining, 0);
  });

  redisTest('a SERVICE_DISABLED capability one process met is remembered by the other', {}, async () => {
    const [a, b] = await twoProcesses();
    a.rememberDisabled('dealer_heatmap', Date.now() + 60_000);
    await eventually(async () => (await b.disabledFor('dealer_heatmap')) !== undefined, 'the other process to remember it');
    const left = await b.disabledFor('dealer_heatmap');
    assert.ok(left !== undefined && left > 58 && left <= 60, `remembered for ${left} s`);
    assert.equal(await b.disabledFor('dealer_gex'), undefined);
    assert.deepEqual((await b.view()).disabled, ['dealer_heatmap']);
  });

  redisTest('IN_FLIGHT_EXCEEDED halves the account cap for every process; answers grow it back', {}, async () => {
    const [a, b] = await twoProcesses();
    a.inFlightRefused();
    await eventually(async () => (await b.view()).max_in_flight === 2, 'the halved cap to reach the other process');
    assert.equal((await b.view()).max_in_flight, 2);
    for (let i = 0; i < 8; i += 1) (await b.acquire(req(2000))).release({ status: 200 });
    await eventually(async () => (await a.view()).max_in_flight > 2, 'answers to grow the cap back for the first process too');
  });

  redisTest('the API key never appears in Redis', {}, async () => {
    const [a, , apiKey] = await twoProcesses();
    (await a.acquire(req(1000))).release({ status: 200 });
    a.rememberDisabled('x', Date.now() + 1000);
    const link = links.at(-1);
    assert.ok(link);
    const keys = (await link.sendCommand(['KEYS', '*'])) as string[];
    assert.ok(keys.length > 0);
    assert.ok(keys.every((k) => !k.includes(apiKey) && !k.includes('secret')));
    assert.ok(
      keys.every((k) => /\{[0-9a-f]{32}\}/.test(k)),
      'one hash tag per account: Redis Cluster keeps them on one slot',
    );
  });
});
