/** MARKET_DATA_REDIS_URL and --redis-url: validated, and a password in the URL is never echoed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';

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

test('a URL that is not redis:// is set aside by name with a warning, without echoing it', () => {
  // An invalid optional setting falls back to its default (no Redis) and never disables the rest.
  const result = loadConfig({ MARKET_DATA_REDIS_URL: 'http://user:hunter2@127.0.0.1:6379' });
  assert.equal(result.config.redisUrl, undefined);
  const warning = result.warnings.find((w) => w.variable === 'MARKET_DATA_REDIS_URL');
  assert.match(warning?.message ?? '', /redis:\/\/ or rediss:\/\//);
  assert.ok(!JSON.stringify(result).includes('hunter2'));
});
