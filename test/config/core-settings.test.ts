/** The core concern (config.ts): each bad value said in the user's words with what is used instead; the key never shown. */
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';

const said = (env: Record<string, string>): string[] => loadConfig(env).warnings.map((w) => w.message);

test('a number that is not one says what was given, what is expected and the default used', () => {
  const result = loadConfig({ MARKET_DATA_DEADLINE_MS: 'abc', MARKET_DATA_RESULT_TOKENS: '2.5', MARKET_DATA_CACHE_ENTRIES: '-1' });
  assert.equal(result.config.deadlineMs, 50_000);
  assert.equal(result.config.resultTokens, 8000);
  assert.equal(result.config.cacheEntries, 500);
  assert.deepEqual(
    result.warnings.map((w) => w.message),
    [
      'MARKET_DATA_DEADLINE_MS=abc is not a whole number of milliseconds; using the default (50000)',
      'MARKET_DATA_CACHE_ENTRIES=-1 is less than 0 entries; using the default (500)',
      'MARKET_DATA_RESULT_TOKENS=2.5 is not a whole number of tokens; using the default (8000)',
    ],
  );
});

test('a deadline out of range is held to the nearest bound, and said', () => {
  const result = loadConfig({ MARKET_DATA_DEADLINE_MS: '700' });
  assert.equal(result.config.deadlineMs, 1000);
  assert.deepEqual(said({ MARKET_DATA_DEADLINE_MS: '700' }), ['MARKET_DATA_DEADLINE_MS=700 is less than 1000 milliseconds; using 1000']);
});

test('a result budget out of range is held to the nearest bound, and said: a small budget asked never becomes the large default', () => {
  assert.equal(loadConfig({ MARKET_DATA_RESULT_TOKENS: '300' }).config.resultTokens, 500);
  assert.deepEqual(said({ MARKET_DATA_RESULT_TOKENS: '300' }), ['MARKET_DATA_RESULT_TOKENS=300 is less than 500 tokens; using 500']);
  assert.equal(loadConfig({ MARKET_DATA_RESULT_TOKENS: '900000' }).config.resultTokens, 200_000);
});

test('MARKET_DATA_DEMO that is neither on nor off is said, not quietly read as off', () => {
  const result = loadConfig({ MARKET_DATA_DEMO: 'enabled' });
  assert.equal(result.config.demo, false);
  assert.deepEqual(said({ MARKET_DATA_DEMO: 'enabled' }), [
    'MARKET_DATA_DEMO=enabled is neither on (1, true, yes, on) nor off (0, false, no, off); using the default (false)',
  ]);
  for (const on of ['1', 'TRUE', ' yes ', 'on']) assert.equal(loadConfig({ MARKET_DATA_DEMO: on }).config.demo, true, on);
  for (const off of ['0', 'False', 'no', 'off']) assert.deepEqual(said({ MARKET_DATA_DEMO: off }), [], off);
});

test('a log level that is not one names the levels', () => {
  assert.deepEqual(said({ MARKET_DATA_LOG_LEVEL: 'verbose' }), [
    'MARKET_DATA_LOG_LEVEL=verbose is not a log level (fatal, error, warn, info, debug, trace, silent); using the default (info)',
  ]);
});

test('good and missing values are used silently', () => {
  const result = loadConfig({ MARKET_DATA_DEADLINE_MS: '20000', MARKET_DATA_REDIS_CACHE_MB: '' });
  assert.ok(result.ok);
  assert.equal(result.config.deadlineMs, 20_000);
  assert.equal(result.config.redisCacheMb, 64);
  assert.deepEqual(result.warnings, []);
});

test('a bad key is said without its value; a bad Redis URL without its password', () => {
  const key = loadConfig({ MARKET_DATA_API_KEY: 'short' });
  assert.ok(!key.ok);
  assert.deepEqual(
    key.problems.map((p) => p.message),
    ['MARKET_DATA_API_KEY is too short for an API key (8 characters or more)'],
  );
  const redis = loadConfig({ MARKET_DATA_REDIS_URL: 'http://user:hunter2@cache:6379' });
  assert.equal(redis.config.redisUrl, undefined);
  assert.deepEqual(
    redis.warnings.map((w) => w.message),
    ['MARKET_DATA_REDIS_URL="http://…@cache:6379" is not a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379; left unset'],
  );
  assert.doesNotMatch(JSON.stringify(redis), /hunter2/);
});

test('a hostile value is cut and escaped in the warning', () => {
  const [message] = said({ MARKET_DATA_CATALOG_REFRESH_S: `\u001b[2J${'9'.repeat(5000)}` });
  assert.ok(message !== undefined && message.length < 200, message);
  assert.match(
    message,
    /^MARKET_DATA_CATALOG_REFRESH_S="\\u001b\[2J9+"… \(5004 characters\) is not a whole number of seconds; using the default \(900\)$/,
  );
});

test("the document's cache folder is the user's cache by the XDG variable, unless MARKET_DATA_CACHE_DIR names one", () => {
  assert.equal(loadConfig({ XDG_CACHE_HOME: '/tmp/xdg' }).config.cacheDir, join('/tmp/xdg', 'market-data-mcp'));
  assert.equal(loadConfig({}).config.cacheDir, join(homedir(), '.cache', 'market-data-mcp'));
  assert.equal(loadConfig({ XDG_CACHE_HOME: '/tmp/xdg', MARKET_DATA_CACHE_DIR: '/srv/mdmcp' }).config.cacheDir, '/srv/mdmcp');
});

test('MARKET_DATA_LOG_LEVEL in any case is the level it names, not a bad value', () => {
  for (const [given, level] of [
    ['WARN', 'warn'],
    ['Debug', 'debug'],
    ['error', 'error'],
  ] as const) {
    const result = loadConfig({ MARKET_DATA_LOG_LEVEL: given });
    assert.equal(result.config.logLevel, level, given);
    assert.deepEqual(said({ MARKET_DATA_LOG_LEVEL: given }), [], given);
  }
});

test('a whole number is decimal digits: hex, exponents and other forms are said, spaces around are trimmed', () => {
  for (const given of ['0x10', '1e3', '0b11', '0o7', '+60', '60s', 'Infinity']) {
    assert.equal(loadConfig({ MARKET_DATA_CATALOG_REFRESH_S: given }).config.catalogRefreshS, 900, given);
    assert.deepEqual(
      said({ MARKET_DATA_CATALOG_REFRESH_S: given }),
      [`MARKET_DATA_CATALOG_REFRESH_S=${given} is not a whole number of seconds; using the default (900)`],
      given,
    );
  }
  assert.equal(loadConfig({ MARKET_DATA_CATALOG_REFRESH_S: ' 60 ' }).config.catalogRefreshS, 60);
  assert.deepEqual(said({ MARKET_DATA_CATALOG_REFRESH_S: ' 60 ' }), []);
  assert.equal(loadConfig({ MARKET_DATA_CATALOG_REFRESH_S: '0060' }).config.catalogRefreshS, 60);
});
