/** The in-process cache is bounded in bytes of memory, measured (deflated JSON, heap and buffers both), not in characters of JSON held as objects. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CACHE_MAX_BYTES, ResponseCache, stringBytes } from '../../src/api/cache.js';

/** Collects twice, a turn apart: zlib's buffers are let go of by a callback after the first. */
async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
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
  await cache.settled();
  await collectGarbage();
  const retained = held() - before;
  assert.ok(cache.size > 0 && cache.size < 300 && cache.bytes <= CACHE_MAX_BYTES, `${cache.size} entries, ${cache.bytes} bytes held`);
  // Parsed rows take 3-5x their JSON: 16 MB of JSON held as objects retained 60+ MB.
  assert.ok(
    retained < CACHE_MAX_BYTES * 1.5,
    `heap and buffers retained ${Math.round(retained / 1048576)} MB for a ${CACHE_MAX_BYTES / 1048576} MB cap`,
  );
});

test('an entry is served while it is deflated and after, with the time to live it was given', async () => {
  let clock = 1_000_000;
  const cache = new ResponseCache<{ data: unknown[]; meta: Record<string, unknown> }>(10, () => clock);
  const value = page(50_000, 1);
  cache.set('/v1/page', value, 30_000);
  assert.deepEqual(cache.get('/v1/page')?.value, value);
  clock += 10_000;
  await cache.settled();
  assert.ok(cache.bytes < 50_000 / 3, `a 50 kB page deflated to ${cache.bytes} bytes`);
  assert.deepEqual(cache.get('/v1/page')?.value, value);
  const left = cache.remainingMs('/v1/page');
  assert.ok(left > 0 && left <= 20_000, `${left} ms left of 30 s after 10 s`);
});

test('an entry that expires while it is deflated is not kept', async () => {
  let clock = 1_000_000;
  const cache = new ResponseCache<{ data: unknown[]; meta: Record<string, unknown> }>(10, () => clock);
  cache.set('/v1/page', page(50_000, 2), 30_000);
  clock += 31_000;
  assert.equal(cache.get('/v1/page'), undefined);
  await cache.settled();
  assert.equal(cache.get('/v1/page'), undefined);
  assert.equal(cache.size, 0);
});

test('text outside Latin-1 is counted at two bytes a character until deflated, and reads are copies the caller may change', async () => {
  const cache = new ResponseCache<{ note: string }>(10, Date.now, { maxBytes: 100_000 });
  cache.set('latin', { note: 'e'.repeat(1000) }, 60_000);
  const latin = cache.bytes;
  cache.set('cjk', { note: '股'.repeat(1000) }, 60_000);
  assert.ok(cache.bytes - latin >= 2000, `a 1,000-character CJK note counted ${cache.bytes - latin} bytes`);
  assert.equal(stringBytes('股'), 2);
  for (const when of ['while deflated', 'once deflated']) {
    const first = cache.get('latin');
    assert.ok(first);
    first.value.note = 'changed';
    assert.equal(cache.get('latin')?.value.note, 'e'.repeat(1000), when);
    await cache.settled();
  }
});
