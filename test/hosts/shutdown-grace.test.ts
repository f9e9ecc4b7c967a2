/** The shutdown grace of --http is read from the environment with its floor, and falls back to the default on anything else. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HTTP_ENV } from '../../src/config/env-vars.js';
import { EXIT_GRACE_MS, shutdownGraceMs } from '../../src/transports/exit.js';

test('MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS sets the grace; below 2 s, not a whole number or unset, the default', () => {
  const grace = (value: string | undefined): number => shutdownGraceMs(value === undefined ? {} : { [HTTP_ENV.shutdownGraceMs]: value });
  assert.equal(grace('25000'), 25_000);
  assert.equal(grace('2000'), 2000);
  for (const value of [undefined, '', '1999', '0', '-5000', '2.5e3x', 'soon', '2500.5'])
    assert.equal(grace(value), EXIT_GRACE_MS, `${String(value)} is not a grace`);
});
