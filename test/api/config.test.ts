import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';

test('plain http is refused for a remote base URL and allowed for loopback', () => {
  const remote = loadConfig({ MARKET_DATA_BASE_URL: 'http://api.example.com' });
  assert.ok(!remote.ok);
  assert.equal(remote.problems[0]?.variable, 'MARKET_DATA_BASE_URL');
  assert.match(remote.problems[0]?.message ?? '', /https/);
  assert.ok(loadConfig({ MARKET_DATA_BASE_URL: 'http://127.0.0.1:8080' }).ok);
  assert.ok(loadConfig({ MARKET_DATA_BASE_URL: 'https://api.example.com/' }).ok);
});

test('a base URL carrying credentials is refused', () => {
  const result = loadConfig({ MARKET_DATA_BASE_URL: 'https://user:secret@api.example.com' });
  assert.ok(!result.ok);
  assert.ok(!JSON.stringify(result).includes('secret'));
});

test('a bad key is named but never echoed', () => {
  const result = loadConfig({ MARKET_DATA_API_KEY: 'bad key with spaces' });
  assert.ok(!result.ok);
  assert.equal(result.problems[0]?.variable, 'MARKET_DATA_API_KEY');
  assert.ok(!JSON.stringify(result).includes('bad key with spaces'));
});

test('numbers come from the environment, flags win, and empty variables count as unset', () => {
  const result = loadConfig(
    { MARKET_DATA_DEADLINE_MS: '20000', MARKET_DATA_LOG_LEVEL: '', MARKET_DATA_TOOLSETS: 'shorts, derived' },
    { demo: true },
  );
  assert.ok(result.ok);
  assert.equal(result.config.deadlineMs, 20000);
  assert.equal(result.config.logLevel, 'info');
  assert.deepEqual(result.config.toolsets, ['shorts', 'derived']);
  assert.equal(result.config.demo, true);
  // An invalid optional variable falls back to its default with a warning (test/config/).
  const bad = loadConfig({ MARKET_DATA_DEADLINE_MS: 'soon' });
  assert.ok(bad.ok && bad.warnings[0]?.variable === 'MARKET_DATA_DEADLINE_MS');
});
