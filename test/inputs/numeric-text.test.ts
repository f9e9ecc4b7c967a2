/**
 * Numbers sent as text (some models send every value as a string): text of exactly the
 * parameter's form is the number, and answers as the number does; any other text is refused
 * with a structured error before any request. Driven through the SDK, whose schema check
 * runs first, so a string refused there would show here too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { errorOf } from '../helpers/mcp.js';
import { withSession } from '../helpers/answers-harness.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

const TOOL = 'shorts_short_screener';

/** Text that is not exactly a whole number: fractions, blanks, hex, exponents, signs, suffixes, anything else. */
const notIntegerText = fc.oneof(
  fc.constantFrom('', ' 5 ', '5 ', '0x10', '1e3', '5abc', '5.5', '5.0', '+5', '--5', 'NaN', 'Infinity', '1_000', '５'),
  fc.integer({ min: 1, max: 1000 }).map((n) => `${n}.${n % 10}`),
  fc.string({ maxLength: 8 }).filter((s) => !/^-?\d{1,15}$/.test(s)),
);

/** Text that is not plain decimal. */
const notDecimalText = fc.oneof(
  fc.constantFrom('', ' 5', '1e1', '0x1', '5%', '.5', '5.', 'ten'),
  fc.string({ maxLength: 8 }).filter((s) => !/^-?\d{1,15}(\.\d{1,15})?$/.test(s)),
);

test('an integer sent as its text answers as the integer; a number as decimal text as the number', async () => {
  await withSession({}, async (session) => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 1000 }), async (limit, tenths) => {
        const pct = String(tenths / 10);
        const asNumbers = await session.answer(TOOL, { limit, min_short_float_pct: tenths / 10 });
        const asText = await session.answer(TOOL, { limit: String(limit), min_short_float_pct: pct });
        assert.deepEqual(asText.data, asNumbers.data);
      }),
      { numRuns: 15 },
    );
  });
});

test('text not exactly of the form is refused with a structured error and reaches no upstream', async () => {
  await withSession({}, async (session) => {
    const before = session.sim.api.requests.length;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          notIntegerText.map((text) => ({ limit: text })),
          notDecimalText.map((text) => ({ min_short_float_pct: text })),
        ),
        async (args) => {
          const error = errorOf(await session.call(TOOL, args));
          assert.equal(error.code, 'VALIDATION_ERROR', JSON.stringify(args));
          const [name] = Object.keys(args);
          assert.match(error.message, new RegExp(`"${name ?? ''}"`));
          assert.match(error.message, /expected an? (integer|number)/);
        },
      ),
      { numRuns: 60 },
    );
    assert.equal(session.sim.api.requests.length, before, 'no upstream request for refused text');
  });
});

test('a value out of range says the range plainly', async () => {
  await withSession({}, async (session) => {
    const before = session.sim.api.requests.length;
    for (const limit of [5000, '5000']) {
      const error = errorOf(await session.call(TOOL, { limit }));
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.match(error.message, /^limit must be 1 to 1000; got 5000\.$/);
    }
    assert.equal(session.sim.api.requests.length, before);
  });
});

test("the tools of this server's own take a number or a flag as its text too", async () => {
  await withSession({}, async (session) => {
    const status = await session.call('api_status', { details: 'true' });
    assert.notEqual(status.isError, true, JSON.stringify(status.content));
    const refused = errorOf(await session.call('api_status', { details: 'yes' }));
    assert.equal(refused.code, 'VALIDATION_ERROR');
    const before = session.sim.api.requests.length;
    const limit = errorOf(await session.call('shorts_sector_screener', { sector: 'Technology', limit: '2.5' }));
    assert.equal(limit.code, 'VALIDATION_ERROR');
    assert.equal(session.sim.api.requests.length, before, 'refused before any request');
    const screen = await session.call('shorts_sector_screener', { sector: 'Technology', limit: '2' });
    assert.notEqual(screen.isError, true, JSON.stringify(screen.content));
  });
});
