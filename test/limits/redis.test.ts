/**
 * The fault matrix's Redis cases, through the built binary: a Redis that is frozen
 * (SIGSTOP: connections open, nothing answers) or killed costs a call at most a short
 * timeout before the in-process fallback, never its deadline.
 *
 * These tests wait on real time: the process under test is a separate binary whose Redis
 * command timeout (1 s) runs on its own clock. Each wait is a few seconds at most.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { createClient } from 'redis';
import { connectV2, textOf, type Connected } from '../helpers/mcp.js';
import type { Client } from '@modelcontextprotocol/client';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';
import { eventually, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-redis-faults-01';
const DEADLINE_MS = 5000;

/** The call's answer, or 'no answer' once `ms` have passed. */
async function within<T>(ms: number, work: Promise<T>): Promise<T | 'no answer'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'no answer'>((resolve) => (timer = setTimeout(() => resolve('no answer'), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until the server shares its account through Redis (api_status says so). */
async function onRedis(server: Connected<Client>): Promise<void> {
  await eventually(
    async () => /"mode":\s*"redis"/.test(textOf(await server.client.callTool({ name: 'api_status', arguments: {} }))),
    10_000,
    'the process to join Redis',
  );
}

const envelope = (code: string): unknown => ({ error: { code, message: code, tags: [], docs_url: '', request_id: null } });

describe('fault matrix: Redis stops answering', () => {
  let redis: ThrowawayRedis | undefined;
  let fake: FakeUpstream | undefined;
  before(async () => {
    redis = await ThrowawayRedis.start().catch(() => undefined);
    fake = await startFakeUpstream();
  });
  after(async () => {
    redis?.thaw();
    await redis?.kill();
    await fake?.close();
  });

  redisTest(
    'Redis frozen before the first cacheable call: every cacheable call answers with data before its deadline',
    { timeout: 40_000 },
    async () => {
      assert.ok(redis && fake);
      const server = await connectV2({
        baseUrl: fake.url,
        key: KEY,
        env: { MARKET_DATA_REDIS_URL: redis.url, MARKET_DATA_DEADLINE_MS: String(DEADLINE_MS) },
      });
      try {
        // On Redis first (both connections up), as a process that started while Redis answered.
        await onRedis(server);
        redis.freeze();
        for (const limit of [2, 3, 4]) {
          const sentBefore: number = fake.dataRequests().length;
          const result = await within(DEADLINE_MS + 2000, server.client.callTool({ name: 'shorts_short_screener', arguments: { limit } }));
          if (result === 'no answer') assert.fail(`the call with limit ${limit} hung on the frozen Redis`);
          assert.notEqual(result.isError, true, textOf(result));
          assert.equal(fake.dataRequests().length, sentBefore + 1, 'the call went upstream through the fallback');
        }
      } finally {
        redis.thaw();
        await server.close();
      }
    },
  );
});

describe('fault matrix: what the server leaves in Redis', () => {
  let redis: ThrowawayRedis | undefined;
  let fake: FakeUpstream | undefined;
  before(async () => {
    redis = await ThrowawayRedis.start().catch(() => undefined);
    fake = await startFakeUpstream();
  });
  after(async () => {
    await redis?.kill();
    await fake?.close();
  });

  redisTest('the cache tier stays within its bytes, skips oversized answers, and every key has a TTL', { timeout: 60_000 }, async () => {
    assert.ok(redis && fake);
    const MAX_BYTES = 1024 * 1024;
    // About 100 kB an answer (limit n gives n kB, so sizes differ); limit 300 gives more than an entry may hold.
    const rowsOf = (kb: number): unknown[] => Array.from({ length: kb }, (_, i) => ({ value: i, pad: 'x'.repeat(1000) }));
    let rateLimitedOnce = false;
    fake.answer = (_req, url) => {
      const limit = Number(url.searchParams.get('limit') ?? 1);
      if (url.pathname.includes('total-options-volume')) return { status: 503, body: envelope('SERVICE_DISABLED') };
      if (limit === 7 && !rateLimitedOnce) {
        rateLimitedOnce = true;
        return { status: 429, headers: { 'retry-after': '1' }, body: envelope('RATE_LIMITED') };
      }
      return { body: { data: rowsOf(limit), _meta: { request_id: `req-${limit}` } } };
    };
    const server = await connectV2({
      baseUrl: fake.url,
      key: KEY,
      env: { MARKET_DATA_REDIS_URL: redis.url, MARKET_DATA_REDIS_CACHE_MB: '1' },
    });
    const inspect = createClient({ url: redis.url });
    await inspect.connect();
    try {
      await onRedis(server);
      // A pause (429 with Retry-After) and a remembered SERVICE_DISABLED: the state and disabled hashes.
      const paused = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 7 } });
      assert.notEqual(paused.isError, true, textOf(paused));
      const disabled = await server.client.callTool({ name: 'market_total_options_volume', arguments: { limit: 2 } });
      assert.equal(disabled.isError, true);
      for (let limit = 90; limit < 110; limit += 1) {
        const result = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit } });
        assert.notEqual(result.isError, true, textOf(result));
      }
      const big = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 300 } });
      assert.notEqual(big.isError, true, textOf(big));

      const keys = await inspect.keys('*');
      const entries = keys.filter((k) => k.includes(':cache:'));
      let held = 0;
      for (const key of entries) held += Number(await inspect.sendCommand(['HSTRLEN', key, 'v']));
      assert.ok(entries.length > 0, 'answers were stored in the tier');
      assert.ok(held <= MAX_BYTES, `the tier holds ${held} bytes, over its ${MAX_BYTES}`);
      assert.ok(held > MAX_BYTES / 2, `the tier is used up to its bound, not emptied (${held} bytes)`);
      const bigStored = await Promise.all(entries.map(async (k) => Number(await inspect.sendCommand(['HSTRLEN', k, 'v'])) > 250_000));
      assert.ok(!bigStored.includes(true), 'an answer above the per-entry cap is not stored');
      assert.ok(keys.some((k) => k.endsWith(':state')) && keys.some((k) => k.endsWith(':disabled')), keys.join(' '));
      const forever: string[] = [];
      // -1: no TTL (-2: gone since it was listed, which is fine).
      for (const key of keys) if ((await inspect.pTTL(key)) === -1) forever.push(key);
      assert.deepEqual(forever, [], 'every key the server writes expires');
    } finally {
      await inspect.close();
      await server.close();
    }
  });
});

describe('fault matrix: Redis refuses the password', () => {
  let redis: ThrowawayRedis | undefined;
  let fake: FakeUpstream | undefined;
  before(async () => {
    redis = await ThrowawayRedis.start().catch(() => undefined);
    fake = await startFakeUpstream();
  });
  after(async () => {
    await redis?.kill();
    await fake?.close();
  });

  redisTest('a wrong password reads as an authentication failure, never shows the password, and calls go on', {}, async () => {
    assert.ok(redis && fake);
    const admin = createClient({ url: redis.url });
    await admin.connect();
    await admin.sendCommand(['CONFIG', 'SET', 'requirepass', 'right-password-123']);
    await admin.close();
    const wrong = 'wrong-password-456';
    const server = await connectV2({
      baseUrl: fake.url,
      key: KEY,
      env: { MARKET_DATA_REDIS_URL: `redis://:${wrong}@127.0.0.1:${redis.port}` },
    });
    try {
      let status = '';
      await eventually(
        async () => {
          status = textOf(await server.client.callTool({ name: 'api_status', arguments: {} }));
          return /authentication failed/.test(status);
        },
        10_000,
        'api_status to say why Redis is not used',
      );
      assert.doesNotMatch(status, /subscriber not connected(?!:)/);
      const result = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      assert.notEqual(result.isError, true, 'calls go on through the in-process gate');
      assert.ok(!status.includes(wrong) && !server.stderr().includes(wrong), 'the password appears nowhere');
    } finally {
      await server.close();
    }
  });
});
