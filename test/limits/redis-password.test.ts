/**
 * A wrong Redis password reads as an authentication failure from the first call on: it
 * read "subscriber not connected" for the first 1 to 2 s (a later socket error wiped the
 * reason the refusal gave). Through the built binary, against a real redis-server started
 * with --requirepass.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { connectV2, textOf } from '../helpers/mcp.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-redis-password-01';
const RIGHT = 'right-password-7f3a';
const WRONG = 'wrong-password-9c1e';

describe('fault matrix: a wrong Redis password, from the first call', () => {
  let redis: ThrowawayRedis | undefined;
  let fake: FakeUpstream | undefined;
  before(async () => {
    redis = await ThrowawayRedis.start(['--requirepass', RIGHT]).catch(() => undefined);
    fake = await startFakeUpstream();
  });
  after(async () => {
    await redis?.kill();
    await fake?.close();
  });

  redisTest('the first api_status and every one after say authentication failed, and no password or key shows', {}, async () => {
    assert.ok(redis && fake);
    const server = await connectV2({
      baseUrl: fake.url,
      key: KEY,
      env: { MARKET_DATA_REDIS_URL: `redis://:${WRONG}@127.0.0.1:${redis.port}` },
    });
    try {
      const statuses: string[] = [];
      for (let call = 0; call < 6; call += 1) {
        statuses.push(textOf(await server.client.callTool({ name: 'api_status', arguments: {} })));
        const result = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
        assert.notEqual(result.isError, true, 'calls go on through the in-process gate');
      }
      for (const [call, status] of statuses.entries()) {
        assert.match(status, /authentication failed/, `api_status #${call + 1}: ${status.slice(0, 600)}`);
        assert.doesNotMatch(status, /subscriber not connected(?!: authentication)/);
      }
      const seen = [...statuses, server.stderr()].join('\n');
      for (const secret of [WRONG, RIGHT, KEY]) assert.ok(!seen.includes(secret), 'no password or key anywhere');
    } finally {
      await server.close();
    }
  });
});
