/** The --http concern (config/http.ts): token, Host names, the connection cap and the shutdown grace, each bad value said. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_MAX_CONNECTIONS, EXIT_GRACE_MS, httpSettings } from '../../src/config/http.js';
import { HTTP_ENV } from '../../src/config/env-vars.js';

const grace = (value: string): ReturnType<typeof httpSettings> => httpSettings({ [HTTP_ENV.shutdownGraceMs]: value });
const messages = (section: ReturnType<typeof httpSettings>): string[] => section.warnings.map((w) => w.message);

test('good and missing values are used silently', () => {
  const section = httpSettings({
    MARKET_DATA_HTTP_TOKEN: ' a-token-of-twenty-chars ',
    MARKET_DATA_HTTP_ALLOWED_HOSTS: 'MCP.example.com, ,api.example.com',
    MARKET_DATA_HTTP_MAX_CONNECTIONS: '32',
    MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS: '25000',
  });
  assert.deepEqual(section.settings, {
    token: 'a-token-of-twenty-chars',
    allowedHosts: ['mcp.example.com', 'api.example.com'],
    maxConnections: 32,
    shutdownGraceMs: 25_000,
  });
  assert.deepEqual([...section.warnings, ...section.problems], []);
  const unset = httpSettings({ MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS: '' });
  assert.deepEqual(unset.settings, { allowedHosts: [], maxConnections: DEFAULT_MAX_CONNECTIONS, shutdownGraceMs: EXIT_GRACE_MS });
  assert.deepEqual(unset.warnings, []);
});

test('Host names that are not host names are said, escaped, and none of them is trusted', () => {
  for (const value of ['mcp.example.com,evil\u001b[31m', 'mcp.example.com:443', 'https://mcp.example.com']) {
    const section = httpSettings({ MARKET_DATA_HTTP_ALLOWED_HOSTS: value });
    assert.deepEqual(section.settings.allowedHosts, [], value);
    const [message] = messages(section);
    assert.match(message ?? '', /^MARKET_DATA_HTTP_ALLOWED_HOSTS=.* is not a list of host names .*; left unset$/, value);
    assert.ok(!(message ?? '').includes('\u001b'), 'the escape is shown escaped, never sent to the terminal');
  }
  assert.deepEqual(httpSettings({ MARKET_DATA_HTTP_ALLOWED_HOSTS: '[::1],10.0.0.7,mcp-1.example.com.' }).warnings, []);
});

test('a grace that is not a whole number is the default, said with what was given', () => {
  for (const value of ['abc', '2.5e3x', '2500.5']) {
    const section = grace(value);
    assert.equal(section.settings.shutdownGraceMs, EXIT_GRACE_MS, value);
    assert.deepEqual(messages(section), [
      `MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS=${value} is not a whole number of milliseconds; using the default (3000)`,
    ]);
  }
});

test('a grace below 2 s is raised to 2 s, said with why', () => {
  for (const value of ['1999', '500', '0', '-1']) {
    const section = grace(value);
    assert.equal(section.settings.shutdownGraceMs, 2000, value);
    assert.deepEqual(messages(section), [
      `MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS=${value} is below 2000 ms, the last second of which answers the calls stopped; using 2000`,
    ]);
  }
});

test('a grace longer than a timer can wait is held to the longest one', () => {
  const section = grace('99999999999');
  assert.equal(section.settings.shutdownGraceMs, 2_147_483_647);
  assert.match(messages(section)[0] ?? '', /=99999999999 is more than 2147483647 milliseconds; using 2147483647$/);
});

test('a connection cap that is not one is the default, said (it used to be replaced silently)', () => {
  const section = httpSettings({ MARKET_DATA_HTTP_MAX_CONNECTIONS: 'lots' });
  assert.equal(section.settings.maxConnections, DEFAULT_MAX_CONNECTIONS);
  assert.deepEqual(messages(section), [
    'MARKET_DATA_HTTP_MAX_CONNECTIONS=lots is not a whole number of connections; using the default (256)',
  ]);
});

test('a token too short is a problem that names the variable and never shows the token', () => {
  const section = httpSettings({ MARKET_DATA_HTTP_TOKEN: 'hunter2' });
  assert.deepEqual(
    section.problems.map((p) => p.message),
    ['MARKET_DATA_HTTP_TOKEN is shorter than 16 characters'],
  );
  assert.equal(section.settings.token, undefined);
  assert.doesNotMatch(JSON.stringify(section), /hunter2/);
});

test('the settings are frozen: what start-up read is what the transport is handed', () => {
  assert.ok(Object.isFrozen(httpSettings({}).settings));
});
