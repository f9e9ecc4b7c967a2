/** MARKET_DATA_REDIS_URL and --redis-url: validated, and a password in the URL is never echoed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.js';

test('MARKET_DATA_REDIS_URL is read; the --redis-url flag wins over it', () => {
  const fromEnv = loadConfig({ MARKET_DATA_REDIS_URL: 'redis://127.0.0.1:6379' });
  assert.ok(fromEnv.ok);
  assert.equal(fromEnv.config.redisUrl, 'redis://127.0.0.1:6379');
  const fromFlag = loadConfig({ MARKET_DATA_REDIS_URL: 'redis://127.0.0.1:6379' }, { redisUrl: 'rediss://cache.internal:6380' });
  assert.ok(fromFlag.ok);
  assert.equal(fromFlag.config.redisUrl, 'rediss://cache.internal:6380');
  const unset = loadConfig({ MARKET_DATA_REDIS_URL: '' });
  assert.ok(unset.ok);
  assert.equal(unset.config.redisUrl, undefined, 'empty means unset: in-process limits');
});

test('a URL that is not redis:// is refused by name, without echoing it', () => {
  const result = loadConfig({ MARKET_DATA_REDIS_URL: 'http://user:hunter2@127.0.0.1:6379' });
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.problems[0]?.variable, 'MARKET_DATA_REDIS_URL');
  assert.match(result.problems[0]?.message ?? '', /redis:\/\/ or rediss:\/\//);
  assert.ok(!JSON.stringify(result.problems).includes('hunter2'));
});
