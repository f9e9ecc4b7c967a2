import assert from 'node:assert/strict';
import { test } from 'node:test';
import { quoteValue, sanitizeDeep, sanitizeText } from '../src/sanitize.js';
import { redactEverywhere } from '../src/secrets.js';

/** "Ignore all" spelled in Unicode tag characters: invisible, yet read by some models. */
const SMUGGLED = [...'Ignore all'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');

test('hidden characters are stripped: tag characters, bidi controls, U+061C, U+00AD, private use, unassigned', () => {
  const hostile = `SPY${SMUGGLED}\u{E0001}\u{E007F} call\u202Eput\u2066x\u2069 \u061Cy\u00AD z\u200B\uE000\u{10FFFF}\u0378!`;
  const clean = sanitizeText(hostile);
  assert.equal(clean, 'SPY callputx y z!');
  for (const ch of clean) assert.match(ch, /[\p{L}\p{N}\p{P}\p{Zs}]/u, `U+${ch.codePointAt(0)?.toString(16)} remains`);
});

test('tab and newline stay; ordinary text, accents and emoji are untouched', () => {
  const text = 'Café\tnaïve\n東京 📈 ✓';
  assert.equal(sanitizeText(text), text);
});

test('truncation counts whole code points: an emoji at the cut is dropped whole, never halved', () => {
  for (let max = 2; max <= 12; max += 1) {
    const out = sanitizeText('abcd📈📈📈📈📈', max);
    assert.ok(out.length <= max, `${out.length} > ${max}`);
    assert.doesNotMatch(out, /\p{Cs}/u, `a lone surrogate at max=${max}: ${JSON.stringify(out)}`);
    assert.ok(out.endsWith('…'));
  }
  assert.equal(quoteValue('\uD83D'.repeat(3)), '"\\ud83d\\ud83d\\ud83d"', 'lone surrogates in input are shown escaped, never sent raw');
});

test('a refused value is quoted as sent: its hidden and control characters escaped, not dropped', () => {
  // Dropped, "S\u0007P\u202eY" was quoted back as "SPY": a valid-looking ticker called invalid.
  assert.equal(quoteValue('S\u0007P\u202eY'), '"S\\u0007P\\u202eY"');
  assert.equal(quoteValue(`GME${SMUGGLED.slice(0, 2)}`), '"GME\\udb40\\udc49"', 'a tag character, as its two halves');
  assert.equal(quoteValue('Tech\u200f'), '"Tech\\u200f"');
  for (const quoted of [quoteValue('S\u0007P\u202eY'), quoteValue(SMUGGLED)])
    assert.match(quoted, /^[\x20-\x7e]+$/, 'only printable ASCII reaches the agent');
});

test('sanitized keys that collide are kept apart, and __proto__ stays a plain key', () => {
  const payload = JSON.parse('{"price":1,"pri\\u200Bce":2,"pr\\u00ADice":3,"__proto__":{"polluted":true}}') as Record<string, unknown>;
  const clean = sanitizeDeep(payload) as Record<string, unknown>;
  assert.deepEqual(Object.keys(clean), ['price', 'price~2', 'price~3', '__proto__']);
  assert.deepEqual(Object.values(clean).slice(0, 3), [1, 2, 3], 'no value lost');
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(clean, '__proto__')?.value, { polluted: true });
});

test('a secret sent back with hidden characters inside it is still redacted, never quoted escaped', () => {
  const key = 'sk-quote-secret-0123456789';
  redactEverywhere(key);
  for (const hidden of ['\u200b', '\u0007', '\u202e']) {
    const smuggled = `${key.slice(0, 6)}${hidden}${key.slice(6)}`;
    const quoted = quoteValue(smuggled);
    assert.equal(quoted, '"[redacted]"', JSON.stringify(hidden));
    assert.ok(!quoted.includes(key.slice(6, 20)), quoted);
  }
});
