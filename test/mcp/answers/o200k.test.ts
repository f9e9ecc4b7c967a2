/** The compact o200k counter against gpt-tokenizer's full encoder: the same counts, at a fraction of the memory. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { MAX_MERGED_PIECE_BYTES, o200kCounter } from '../../../src/mcp/answers/o200k.js';

/** mulberry32: a fixed sequence, so a failure repeats. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('the compact counter counts exactly what o200k_base counts, on JSON and on random text', async () => {
  const counter = await o200kCounter();
  const random = seeded(7);
  const alphabet = [
    '0123456789',
    'abcdefghijklmnopqrstuvwxyz',
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    '    ',
    '{}[]":,.-_+/\\',
    "éüß你好🚀\u200b\n\r\t'",
    "'s 're 've",
  ];
  const samples: string[] = [];
  for (let i = 0; i < 1500; i += 1) {
    let text = '';
    const length = 1 + Math.floor(random() * 300);
    for (let j = 0; j < length; j += 1) {
      const set = alphabet[Math.floor(random() * alphabet.length)] ?? '';
      text += set[Math.floor(random() * set.length)] ?? '';
    }
    samples.push(text);
  }
  const rows = Array.from({ length: 300 }, (_, i) => ({
    ticker: ['AAPL', 'BRK.B', 'NVDA'][i % 3],
    session_date: `2026-11-${String(1 + (i % 28)).padStart(2, '0')}`,
    net_premium: (i * 7919.123) % 100_003,
    note: i % 5 === 0 ? 'Dealers were short gamma; spot pinned near the 200 strike.' : null,
  }));
  samples.push(JSON.stringify({ data: rows, meta: { truncated: false, as_of: new Date(0).toISOString() } }));
  let differing = 0;
  for (const text of samples) {
    const ours = await counter.count(text);
    const theirs = countTokens(text);
    if (ours !== theirs) differing += 1;
    assert.ok(ours >= theirs, `never below o200k: ${ours} < ${theirs} for ${JSON.stringify(text).slice(0, 80)}`);
  }
  assert.equal(differing, 0, `${differing} of ${samples.length} samples counted differently`);
});

test('a piece too long to merge (a run of punctuation) is counted as its bytes: never under o200k', async () => {
  const counter = await o200kCounter();
  const text = `[${'{},'.repeat(3000)}{}]`;
  assert.ok(text.length > MAX_MERGED_PIECE_BYTES);
  const ours = await counter.count(text);
  assert.equal(ours, text.length, 'one piece of punctuation, counted a token a byte');
  assert.ok(ours >= countTokens(text));
});
