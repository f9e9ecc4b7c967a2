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
import { connectV2, textOf } from '../helpers/mcp.js';
import { redisTest, ThrowawayRedis } from '../redis/helpers/redis-server.js';
import { eventually, startFakeUpstream, type FakeUpstream } from './fake-upstream.js';

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
        await eventually(
          async () => /"mode":\s*"redis"/.test(textOf(await server.client.callTool({ name: 'api_status', arguments: {} }))),
          10_000,
          'the process to join Redis',
        );
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
