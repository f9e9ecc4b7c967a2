/** The in-process cache is bounded in bytes of memory, measured (deflated JSON, heap and buffers both), not in characters of JSON held as objects. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CACHE_MAX_BYTES, ResponseCache } from '../../src/api/cache.js';

/** Collects twice, a turn apart: zlib's buffers are let go of by a callback after the first. */
async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  // time passes: zlib lets go of its buffers in a callback after the first collection; no event says when.
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
}

/** Rows of about `chars` characters of JSON, different for each `seed`. */
function page(chars: number, seed: number): { data: unknown[]; meta: Record<string, unknown> } {
  const row = (i: number) => ({
    ticker: `T${seed}X${i}`,
    short_float_pct: (i % 97) + seed / 1000,
    days_to_cover: i / 7,
    note: `n${seed}-${i}`,
  });
  const per = JSON.stringify(row(0)).length + 1;
  return { data: Array.from({ length: Math.ceil(chars / per) }, (_, i) => row(i)), meta: { request_id: `r${seed}` } };
}

/** Heap and buffers outside it: deflated entries live in the latter. */
function held(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

test('a full cache retains about its byte cap in heap and buffers, not several times it', async () => {
  await collectGarbage();
  const before = held();
  const cache = new ResponseCache<{ data: unknown[]; meta: Record<string, unknown> }>(10_000);
  for (let seed = 0; seed < 300; seed += 1) cache.set(`/v1/page?seed=${seed}`, page(200_000, seed), 60_000);
  await collectGarbage();
  const retained = held() - before;
  assert.ok(cache.size > 0 && cache.size < 300 && cache.bytes <= CACHE_MAX_BYTES, `${cache.size} entries, ${cache.bytes} bytes held`);
  // Parsed rows take 3-5x their JSON: 16 MB of JSON held as objects retained 60+ MB.
  assert.ok(
    retained < CACHE_MAX_BYTES * 1.5,
    `heap and buffers retained ${Math.round(retained / 1048576)} MB for a ${CACHE_MAX_BYTES / 1048576} MB cap`,
  );
});

test('an entry is served as it was stored, and no longer than its time to live', () => {
  const cache = new ResponseCache<{ data: unknown[]; meta: Record<string, unknown> }>(10);
  const value = page(50_000, 1);
  cache.set('/v1/page', value, 30_000);
  assert.ok(cache.bytes < 50_000 / 3, `a 50 kB page deflated to ${cache.bytes} bytes`);
  assert.deepEqual(cache.get('/v1/page')?.value, value);
  const left = cache.remainingMs('/v1/page');
  assert.ok(left > 29_000 && left <= 30_000, `${left} ms left of 30 s`);
});

test('reads are copies the caller may change', () => {
  const cache = new ResponseCache<{ note: string }>(10, Date.now, { maxBytes: 100_000 });
  cache.set('latin', { note: 'e'.repeat(1000) }, 60_000);
  const first = cache.get('latin');
  assert.ok(first);
  first.value.note = 'changed';
  assert.equal(cache.get('latin')?.value.note, 'e'.repeat(1000));
});

test('an answer whose JSON is over the per-entry cap is not kept, counting text outside Latin-1 at two bytes a character', () => {
  const cache = new ResponseCache<{ note: string }>(10, Date.now, { maxEntryBytes: 3000 });
  cache.set('latin', { note: 'e'.repeat(2000) }, 60_000);
  cache.set('cjk', { note: '股'.repeat(2000) }, 60_000);
  assert.ok(cache.get('latin'), 'a 2,000-character Latin-1 note is within 3,000 bytes');
  assert.equal(cache.get('cjk'), undefined, 'a 2,000-character CJK note is 4,000 bytes');
});
