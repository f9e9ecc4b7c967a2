/**
 * The fault matrix's wait-or-fail case on the shared Redis gate, through the built binary:
 * two server processes on one account, a slow upstream (2 s), short deadlines (4 s). A call whose
 * turn behind the account's five shared leases, plus its own request, cannot come before
 * its deadline is refused unsent with retry guidance; none is sent only to be aborted
 * mid-flight at its deadline (an upstream may have charged it).
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connectV2, errorOf, textOf, type Connected } from '../helpers/mcp.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';
import { eventually, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-redis-wait-01';

async function onRedis(server: Connected<Client>): Promise<void> {
  await eventually(
    async () => /"mode":\s*"redis"/.test(textOf(await server.client.callTool({ name: 'api_status', arguments: {} }))),
    10_000,
    'the process to join Redis',
  );
}

describe('fault matrix: wait or fail on the shared Redis gate', () => {
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

  redisTest(
    'two processes, a slow upstream: calls that cannot be answered in time are refused unsent, never aborted mid-flight',
    { timeout: 60_000 },
    async () => {
      assert.ok(redis && fake);
      const upstream = fake;
      // Each answer takes 2 s; a call has 4 s: of ten at once, the first five fit with time to spare (a loaded
      // machine adds to every answer); the five behind them would end at their deadline at best.
      upstream.answer = (_req, url) => ({ body: { data: [{ value: 1 }], _meta: { request_id: `req-${url.search}` } }, delayMs: 2000 });
      const env = { MARKET_DATA_REDIS_URL: redis.url, MARKET_DATA_DEADLINE_MS: '4000' };
      const servers = [
        await connectV2({ baseUrl: upstream.url, key: KEY, env }),
        await connectV2({ baseUrl: upstream.url, key: KEY, env }),
      ];
      try {
        for (const server of servers) await onRedis(server);
        // One call each first: each process learns how long a request takes.
        for (const [index, server] of servers.entries()) {
          const first = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 40 + index } });
          assert.notEqual(first.isError, true, textOf(first));
        }
        const sentBefore = upstream.dataRequests().length;
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => {
            const server = servers[i % 2];
            assert.ok(server);
            return server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: i + 2 } });
          }),
        );
        const answered = results.filter((r) => r.isError !== true);
        const refused = results.filter((r) => r.isError === true).map((r) => errorOf(r));
        assert.ok(refused.length > 0, 'some calls could not fit');
        assert.ok(answered.length > 0, 'the first wave fits');
        for (const error of refused) {
          assert.equal(error.code, 'RATE_LIMITED', error.message);
          assert.equal(error.recoverable, true);
          assert.match(error.message, /nothing was sent/);
          assert.ok((error.retry_after_seconds ?? 0) >= 1, 'with retry guidance');
        }
        const abortedMidFlight = upstream.dataRequests().filter((r) => r.closedEarly);
        assert.deepEqual(abortedMidFlight, [], 'no request was sent only to be aborted at its deadline');
        assert.equal(upstream.dataRequests().length, sentBefore + answered.length, 'every answered call was sent once, no refused one');
      } finally {
        await Promise.all(servers.map((s) => s.close()));
      }
    },
  );
});
