/** The in-process cache is bounded in bytes of memory, measured, not in characters of JSON held as objects. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { CACHE_MAX_BYTES, ResponseCache, stringBytes } from '../../src/api/cache.js';

function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
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

test('a full cache retains about its byte cap in heap, not several times it', () => {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const cache = new ResponseCache<{ data: unknown[]; meta: Record<string, unknown> }>(10_000);
  for (let seed = 0; seed < 80; seed += 1) cache.set(`/v1/page?seed=${seed}`, page(500_000, seed), 60_000);
  collectGarbage();
  const retained = process.memoryUsage().heapUsed - before;
  assert.ok(cache.size > 0 && cache.bytes <= CACHE_MAX_BYTES, `${cache.bytes} bytes held`);
  // Parsed rows take 3-5x their JSON: the same 16 MB held as objects retained 60+ MB.
  assert.ok(
    retained < CACHE_MAX_BYTES * 1.5,
    `heap retained ${Math.round(retained / 1048576)} MB for a ${CACHE_MAX_BYTES / 1048576} MB cap`,
  );
});

test('text outside Latin-1 is counted at two bytes a character, and reads are copies the caller may change', () => {
  const cache = new ResponseCache<{ note: string }>(10, Date.now, { maxBytes: 100_000 });
  cache.set('latin', { note: 'e'.repeat(1000) }, 60_000);
  const latin = cache.bytes;
  cache.set('cjk', { note: '股'.repeat(1000) }, 60_000);
  assert.ok(cache.bytes - latin >= 2000, `a 1,000-character CJK note counted ${cache.bytes - latin} bytes`);
  assert.equal(stringBytes('股'), 2);
  const first = cache.get('latin');
  assert.ok(first);
  first.value.note = 'changed';
  assert.equal(cache.get('latin')?.value.note, 'e'.repeat(1000));
});
