/**
 * An answer that can no longer change is kept on Redis too, for every process of the account
 * (issue 32): the closed sessions of the dealer history are stored for hours or days, not the
 * 30 s of a live answer, and a second process reads them without a request.
 */
import assert from 'node:assert/strict';
import { RedisLink } from '../../src/redis/connection.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';
import { eventually } from '../helpers/wait.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';

redisTest(
  'closed dealer sessions are kept on Redis past a live answer’s 30 s, and another process reads them free',
  { timeout: 90_000 },
  async () => {
    const redis = await ThrowawayRedis.start();
    const link = new RedisLink({ url: redis.url });
    try {
      await withSimulator({}, async (sim) => {
        const env = { MARKET_DATA_LOG_LEVEL: 'warn', MARKET_DATA_REDIS_URL: redis.url };
        const first = await connectV2({ baseUrl: sim.url, key: 'sim-live-key', env });
        const second = await connectV2({ baseUrl: sim.url, key: 'sim-live-key', env });
        try {
          for (const server of [first, second])
            await eventually(async () => {
              const status = await server.client.callTool({ name: 'api_status', arguments: {} });
              return (status.structuredContent as { budget: { mode: string } }).budget.mode === 'redis';
            }, 'the server joined Redis');
          const read = await first.client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', view: 'sessions' } });
          assert.notEqual(read.isError, true);
          // Entries are hashes with the stored value in `v`: their time to live, longest first.
          const keys = (await link.sendCommand(['KEYS', '*'])) as string[];
          const ttls: number[] = [];
          for (const key of keys) {
            if ((await link.sendCommand(['TYPE', key])) !== 'hash' || (await link.sendCommand(['HEXISTS', key, 'v'])) !== 1) continue;
            ttls.push(Number(await link.sendCommand(['PTTL', key])));
          }
          ttls.sort((a, b) => b - a);
          assert.ok(ttls.length >= 2, `${ttls.length} entries stored`);
          // Behind a cursor, a page of closed sessions stays until its oldest session leaves the three held.
          assert.ok((ttls[0] ?? 0) > 60 * 60_000, `the longest entry lives ${Math.round((ttls[0] ?? 0) / 60_000)} min`);
          assert.ok((ttls[0] ?? 0) <= 7 * 24 * 60 * 60_000);
          const sent = sim.api.requests.length;
          const again = await second.client.callTool({
            name: 'derived_dealer_gex_history',
            arguments: { ticker: 'SPY', view: 'sessions' },
          });
          assert.notEqual(again.isError, true);
          // The newest page may hold a live snapshot (30 s, re-read); the closed pages behind it come from Redis.
          assert.ok(sim.api.requests.length - sent <= 1, `${sim.api.requests.length - sent} requests for the second process`);
        } finally {
          await first.close();
          await second.close();
        }
      });
    } finally {
      await link.close();
      await redis.kill();
    }
  },
);
