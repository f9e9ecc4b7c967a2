/**
 * Start-up never waits on Redis: with MARKET_DATA_REDIS_URL on a refused port or on a
 * frozen Redis, the server answers initialize and tools/list as soon as it does without
 * Redis, on its own account gate, and api_status says so. With a live Redis its first
 * calls go through Redis.
 *
 * Timing is compared with a start without Redis in the same run (the fastest of a few
 * each), not with a fixed figure: a start that waited for Redis would come out a second
 * (the old connect wait) slower, well past the margin allowed here.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { connectV2 } from '../helpers/mcp.js';
import { freePort, redisTest, ThrowawayRedis } from '../helpers/redis-server.js';

/** Room for the Redis client's module to load and for noise; a wait on Redis cost ≥ 1000 ms. */
const MARGIN_MS = 600;
const RUNS = 3;

interface Started {
  /** From spawn to the answer of tools/list (initialize comes first). */
  ms: number;
  mode: string | undefined;
  reason: string | undefined;
}

async function start(redisUrl: string | undefined): Promise<Started> {
  const began = performance.now();
  const server = await connectV2({
    args: ['--demo'],
    env: { MARKET_DATA_LOG_LEVEL: 'warn', ...(redisUrl ? { MARKET_DATA_REDIS_URL: redisUrl } : {}) },
  });
  try {
    const tools = await server.client.listTools();
    const ms = performance.now() - began;
    assert.ok(tools.tools.length > 0);
    const status = await server.client.callTool({ name: 'api_status', arguments: {} });
    const budget = (status.structuredContent as { budget?: { mode?: string; mode_reason?: string } }).budget;
    return { ms, mode: budget?.mode, reason: budget?.mode_reason };
  } finally {
    await server.close();
  }
}

describe('start-up with MARKET_DATA_REDIS_URL', () => {
  let redis: ThrowawayRedis | undefined;
  before(async () => {
    redis = await ThrowawayRedis.start().catch(() => undefined);
  });
  after(async () => {
    redis?.thaw();
    await redis?.kill();
  });

  redisTest(
    'a refused port or a frozen Redis: initialize and tools/list answer as fast as without Redis',
    { timeout: 90_000 },
    async () => {
      assert.ok(redis);
      const refused = `redis://127.0.0.1:${await freePort()}`;
      const fastest = (runs: Started[]): number => Math.min(...runs.map((r) => r.ms));
      const none: Started[] = [];
      const down: Started[] = [];
      const frozen: Started[] = [];
      // Interleaved, so that a busy moment of the machine weighs on every kind alike.
      for (let i = 0; i < RUNS; i += 1) {
        none.push(await start(undefined));
        down.push(await start(refused));
        redis.freeze();
        try {
          frozen.push(await start(redis.url));
        } finally {
          redis.thaw();
        }
      }
      const summary = `fastest start without Redis ${fastest(none).toFixed(0)} ms, refused port ${fastest(down).toFixed(0)} ms, frozen Redis ${fastest(frozen).toFixed(0)} ms`;
      assert.ok(fastest(down) - fastest(none) < MARGIN_MS, `a refused port delayed the start: ${summary}`);
      assert.ok(fastest(frozen) - fastest(none) < MARGIN_MS, `a frozen Redis delayed the start: ${summary}`);
      for (const run of [...down, ...frozen]) {
        assert.equal(run.mode, 'in-process', 'on its own account gate while Redis does not answer');
        assert.match(run.reason ?? '', /redis|Redis/);
      }
    },
  );

  redisTest('a live Redis: the first call is already on Redis', { timeout: 30_000 }, async () => {
    assert.ok(redis);
    const run = await start(redis.url);
    assert.equal(run.mode, 'redis', run.reason);
  });
});
