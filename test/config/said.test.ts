/** How a value the user gave is quoted back at start: short, escaped, and a secret never at all. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { given, shownUrl, shownValue, SHOWN_CHARS } from '../../src/config/said.js';

test('a plain value is shown as given', () => {
  assert.equal(given('MARKET_DATA_DEADLINE_MS', '30s'), 'MARKET_DATA_DEADLINE_MS=30s');
});

test('control characters, bidi marks and quotes are escaped, so a value cannot forge a line or colour the terminal', () => {
  const shown = shownValue('1\n{"level":50}\u001b[31m\u202e');
  assert.equal(shown, '"1\\u000a{\\"level\\":50}\\u001b[31m\\u202e"');
  for (const raw of ['\n', '\u001b', '\u202e']) assert.ok(!shown.includes(raw), JSON.stringify(raw));
});

test('a very long value is cut, saying how long it was', () => {
  const shown = shownValue('9'.repeat(100_000));
  assert.ok(shown.length < SHOWN_CHARS + 40, shown);
  assert.match(shown, /^"9{40}"… \(100000 characters\)$/);
});

test('a secret is named, never shown, and a URL loses its password and query', () => {
  assert.equal(given('MARKET_DATA_API_KEY', 'sk-live-123456', 'secret'), 'MARKET_DATA_API_KEY');
  const url = shownUrl('redis://user:hunter2@cache.internal:6379/0?password=hunter2');
  assert.doesNotMatch(url, /hunter2/);
  assert.match(url, /redis:\/\/…@cache\.internal:6379\/0\?…/);
});

test('a URL that does not parse loses its password too, whatever it holds', () => {
  for (const [value, shown] of [
    ['redis://:pa/ss-hunter2@cache:6379', 'redis://…@cache:6379'],
    ['redis://default:ab#hunter2@cache', 'redis://…@cache'],
    ['redis:/:hunter2@cache', 'redis:/…@cache'],
    ['redis:hunter2@cache', 'redis:…@cache'],
    ['https//user:hunter2@api.example.com', '…@api.example.com'],
  ] as const) {
    const url = shownUrl(value);
    assert.doesNotMatch(url, /hunter2|pa\/ss/, value);
    assert.equal(url, `"${shown}"`, value);
  }
});
