/** The development concern (config/development.ts): the simulator's dialect and V8's heap sizing. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { developmentSettings } from '../../src/config/development.js';
import { dialectFromEnv } from '../../src/simulator/dialect.js';

test('good and missing values are used silently', () => {
  assert.deepEqual(developmentSettings({}), { settings: { simDialect: 'spec', v8DefaultHeap: false }, warnings: [] });
  assert.deepEqual(developmentSettings({ MARKET_DATA_SIM_DIALECT: 'camel', MARKET_DATA_V8_DEFAULT_HEAP: '1' }), {
    settings: { simDialect: 'camel', v8DefaultHeap: true },
    warnings: [],
  });
});

test("a heap switch that is neither 1 nor 0 keeps the server's sizing, said", () => {
  const section = developmentSettings({ MARKET_DATA_V8_DEFAULT_HEAP: 'yes' });
  assert.equal(section.settings.v8DefaultHeap, false);
  assert.deepEqual(
    section.warnings.map((w) => w.message),
    ["MARKET_DATA_V8_DEFAULT_HEAP=yes is neither 1 (V8's own heap sizing) nor 0; using the default (0)"],
  );
});

test('an unknown dialect is refused with what was given, escaped, and the names there are', () => {
  assert.throws(
    () => dialectFromEnv({ MARKET_DATA_SIM_DIALECT: 'klingon\u001b[0m' }),
    (error: Error) => {
      assert.equal(
        error.message,
        'MARKET_DATA_SIM_DIALECT="klingon\\u001b[0m" is not a simulator dialect: one of spec, camel, vendor, kebab, or seed:<n>.',
      );
      return true;
    },
  );
});
