import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { createRedisCacheTier } from '../../src/redis/cache.js';
import { ApiError } from '../../src/api/errors.js';
import { RedisLink } from '../../src/redis/connection.js';
import { RedisAccountGate } from '../../src/redis/gate.js';
import { teamAccountKeys } from '../../src/redis/team-keys.js';
import { sealFor } from '../../src/redis/sealed-values.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';

const KEY_A = 'desk-key-aaaaaaaa';
const KEY_B = 'desk-key-bbbbbbbb';
const PER_WINDOW = 4;

describe('one gate per account, one cache per key, sealed in Redis', () => {
  let redis: ThrowawayRedis | undefined;
  const links: RedisLink[] = [];
  before(async () => {
    try {
      redis = await ThrowawayRedis.start();
    } catch {
      redis = undefined;
    }
  });
  after(async () => {
    for (const link of links) await link.close();
    await redis?.kill();
  });

  async function link(): Promise<RedisLink> {
    assert.ok(redis);
    const made = new RedisLink({ url: redis.url });
    links.push(made);
    assert.ok(await made.waitUntilReady(5000), 'redis answers');
    return made;
  }

  /** Spends the whole window through `gate`, then asks `other` for one more turn within 300 ms. */
  async function otherGetsATurn(accountId: string | undefined, keyA: string, keyB: string): Promise<boolean> {
    const gate = async (apiKey: string): Promise<RedisAccountGate> =>
      new RedisAccountGate({ link: await link(), keys: teamAccountKeys(apiKey, accountId), perWindow: PER_WINDOW, windowMs: 60_000 });
    const first = await gate(keyA);
    const second = await gate(keyB);
    const signal = new AbortController().signal;
    for (let i = 0; i < PER_WINDOW; i += 1) {
      const permit = await first.acquire({ free: false, deadline: Date.now() + 5000, signal });
      permit.release({ status: 200 });
    }
    try {
      const permit = await second.acquire({ free: false, deadline: Date.now() + 300, signal });
      permit.release({ status: 200 });
      return true;
    } catch (error) {
      assert.ok(error instanceof ApiError && error.code === 'RATE_LIMITED', String(error));
      return false;
    }
  }

  redisTest('two keys named as one account wait in one window; without the account name each key had a window of its own', {}, async () => {
    assert.equal(await otherGetsATurn('acct_desk', KEY_A, KEY_B), false, "the account's window was spent: the other key waits");
    assert.equal(
      await otherGetsATurn(undefined, `${KEY_A}-2`, `${KEY_B}-2`),
      true,
      'keyed by the API key, the other key saw a fresh window',
    );
  });

  redisTest("cached answers are sealed with the key's seal: unreadable in Redis, and a tier without that key misses", {}, async () => {
    const keys = teamAccountKeys(KEY_A, 'acct_desk');
    const writer = createRedisCacheTier<{ rows: string[] }>({ link: await link(), apiKey: KEY_A, keys, seal: sealFor(KEY_A) });
    await writer.set('/v1/stocks/short-interest?ticker=GME', { rows: ['GME short interest 21.7%'] }, 60_000);
    const read = await writer.get('/v1/stocks/short-interest?ticker=GME');
    assert.deepEqual(read?.value, { rows: ['GME short interest 21.7%'] }, 'the key that sealed it opens it');
    const reader = await link();
    const names = (await reader.sendCommand(['KEYS', `${keys.cache}*`])) as string[];
    assert.ok(names.length > 0, 'the entry is in Redis');
    for (const name of names) {
      const raw = JSON.stringify(await reader.sendCommand(['HGETALL', name]));
      assert.ok(!raw.includes('GME short interest'), 'the stored value does not show the answer');
    }
    const stranger = createRedisCacheTier<{ rows: string[] }>({ link: await link(), apiKey: KEY_A, keys, seal: sealFor(KEY_B) });
    assert.equal(await stranger.get('/v1/stocks/short-interest?ticker=GME'), undefined, 'another key cannot open it');
    assert.notEqual(teamAccountKeys(KEY_B, 'acct_desk').cache, keys.cache, 'and another key of the account caches under its own names');
    assert.equal(teamAccountKeys(KEY_B, 'acct_desk').window, keys.window, 'while both keys share the gate');
  });
});
