/**
 * The sliced parse of large pages (src/api/sliced-json.ts) against the native JSON.parse,
 * with slices of a few characters so that every container takes the sliced path; and the
 * in-place cleaning of a parsed page against sanitizeDeep.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MAX_OBJECT_KEYS, parseBody, parseSliced } from '../../src/api/sliced-json.js';
import { nestedDeeperThan, sanitizeDeep, sanitizeParsed } from '../../src/sanitize.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

test('any JSON, compact or indented, parses to what JSON.parse gives, whatever the slice', async () => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 1, max: 40 }), fc.boolean(), async (value, sliceChars, indent) => {
      const text = JSON.stringify(value, null, indent ? 1 : 0);
      const parsed = await parseSliced(text, { maxDepth: 64, sliceChars });
      assert.equal(parsed.tooDeep, false);
      assert.deepEqual(parsed.value, JSON.parse(text));
    }),
    { numRuns: 500 },
  );
});

test('text JSON.parse refuses is refused too, on the sliced path', async () => {
  for (const bad of ['[1,]', '{"a":1,}', '[1 2]', '{"a" 1}', '[{"a":1},]', '[[1,2],[3,4]', '{"a":[1,2]}}', '["x]', '[1,2] 3']) {
    assert.throws(() => JSON.parse(bad) as unknown, SyntaxError);
    await assert.rejects(parseSliced(bad, { maxDepth: 64, sliceChars: 1 }), SyntaxError, bad);
  }
});

test('depth is judged on the text as nestedDeeperThan judges the value', async () => {
  for (const depth of [63, 64, 65, 80]) {
    const text = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const parsed = await parseSliced(text, { maxDepth: 64, sliceChars: 4 });
    assert.equal(parsed.tooDeep, nestedDeeperThan(JSON.parse(text), 64), `${depth} levels`);
  }
});

test('an array keeps at most maxItems elements and counts the rest; a __proto__ key stays a data key', async () => {
  const text = JSON.stringify({ data: Array.from({ length: 50 }, (_, i) => ({ i })) }).replace('"data"', '"__proto__":[4,5,6,7,8],"data"');
  const parsed = await parseSliced(text, { maxDepth: 64, sliceChars: 8, maxItems: 20 });
  assert.equal(parsed.tooDeep, false);
  const value = parsed.value as { data: { i: number }[] };
  assert.deepEqual(
    value.data.map((row) => row.i),
    Array.from({ length: 20 }, (_, i) => i),
  );
  assert.equal(parsed.leftOut, 30);
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(value, '__proto__')?.value, [4, 5, 6, 7, 8]);
});

test('an object keeps at most maxKeys members, in order, and counts the rest, however its members were batched', async () => {
  const row = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, i % 3 === 0 ? { nested: i } : i]));
  const text = JSON.stringify({ data: [row, { small: 1 }] });
  for (const sliceChars of [1, 8, 64]) {
    const parsed = await parseSliced(text, { maxDepth: 64, sliceChars, maxKeys: 20 });
    assert.equal(parsed.tooDeep, false);
    const [wide, small] = (parsed.value as { data: Record<string, unknown>[] }).data;
    assert.deepEqual(Object.entries(wide ?? {}), Object.entries(row).slice(0, 20), `slices of ${sliceChars}`);
    assert.deepEqual(small, { small: 1 });
    assert.equal(parsed.fieldsLeftOut, 30);
    assert.equal(parsed.leftOut, 0);
  }
});

test('a small body: parsed as JSON.parse parses it, or, too dense or too wide, cut while it is read; depth judged on the text', async () => {
  const ordinary = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ ticker: 'AAPL', size: i, tags: ['a"\\', '\\'] })) });
  assert.deepEqual(await parseBody(ordinary, 64), {
    body: JSON.parse(ordinary) as unknown,
    nestedTooDeep: false,
    leftOut: 0,
    fieldsLeftOut: 0,
    sliced: false,
  });
  // Wider than a slice of text (64 KB): an object within one is parsed whole, a slice's worth of keys at most.
  const fields = 4 * MAX_OBJECT_KEYS;
  const wide = JSON.stringify({ data: [Object.fromEntries(Array.from({ length: fields }, (_, i) => [`f${i}`, i]))] });
  assert.ok(wide.length > 64 * 1024 && wide.length < 1024 * 1024);
  const cut = await parseBody(wide, 64);
  assert.equal(cut.fieldsLeftOut, fields - MAX_OBJECT_KEYS);
  assert.equal(Object.keys((cut.body as { data: object[] }).data[0] ?? {}).length, MAX_OBJECT_KEYS);
  const empty = `{"data":[${'{},'.repeat(99_999)}{}]}`;
  assert.ok(empty.length < 1024 * 1024, 'a small body');
  assert.deepEqual(await parseBody(empty, 64), {
    body: JSON.parse(empty) as unknown,
    nestedTooDeep: false,
    leftOut: 0,
    fieldsLeftOut: 0,
    sliced: true,
  });
  for (const depth of [63, 64, 65]) {
    const text = `${'['.repeat(depth)}"[{\\\\"${']'.repeat(depth)}`;
    assert.equal((await parseBody(text, 64)).nestedTooDeep, nestedDeeperThan(JSON.parse(text), 64), `${depth} levels`);
  }
  await assert.rejects(parseBody('{"a":[1,}', 64), SyntaxError);
});

test('cleaning a parsed page in place gives what sanitizeDeep gives', async () => {
  const hidden = fc.constantFrom('', '\u200b', '\u202e', '\u0000', 'x'.repeat(2100));
  const text = fc.tuple(fc.string({ maxLength: 8 }), hidden).map(([a, b]) => `${a}${b}`);
  const payload = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  })).value;
  await fc.assert(
    fc.asyncProperty(payload, async (value) => {
      const expected = sanitizeDeep(value);
      assert.deepEqual(await sanitizeParsed(structuredClone(value)), expected);
    }),
    { numRuns: 300 },
  );
});
