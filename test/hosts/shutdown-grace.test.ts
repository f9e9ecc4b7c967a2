/** The shutdown grace of --http is read from the environment with its floor, and anything else falls back to the default with a warning. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HTTP_ENV } from '../../src/config/env-vars.js';
import { EXIT_GRACE_MS, shutdownGrace } from '../../src/transports/exit.js';

const grace = (value: string | undefined): ReturnType<typeof shutdownGrace> =>
  shutdownGrace(value === undefined ? {} : { [HTTP_ENV.shutdownGraceMs]: value });

test('MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS sets the grace, silently when it is one', () => {
  assert.deepEqual(grace('25000'), { ms: 25_000 });
  assert.deepEqual(grace('2000'), { ms: 2000 });
  assert.deepEqual(grace(undefined), { ms: EXIT_GRACE_MS });
  assert.deepEqual(grace(''), { ms: EXIT_GRACE_MS });
});

test('a grace below 2 s is raised to 2 s, and one that is not a whole number is the default, each said', () => {
  for (const value of ['1999', '500', '0', '-1']) {
    const { ms, warning } = grace(value);
    assert.equal(ms, 2000, value);
    assert.match(warning ?? '', /MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS .* below 2000 ms.*using 2000/, value);
  }
  for (const value of ['abc', '2.5e3x', '2500.5']) {
    const { ms, warning } = grace(value);
    assert.equal(ms, EXIT_GRACE_MS, value);
    assert.match(warning ?? '', /not a whole number of milliseconds; using the default \(3000\)/, value);
  }
});
