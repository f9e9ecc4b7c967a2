/**
 * The expected duration wait-or-fail counts is a data request's: a slow free request (the
 * start-up openapi.json) must not teach the gate a duration that refuses every data call.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/api/errors.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { FakeClock } from '../helpers/fake-clock.js';

test('a slow free request does not make the in-process gate refuse data calls as too short for a request', async () => {
  const clock = new FakeClock();
  const gate = new InProcessAccountGate({ clock, inFlight: { initial: 5 } });
  const document = await gate.acquire({ free: true, deadline: clock.now() + 60_000, signal: new AbortController().signal });
  await clock.advance(10_000);
  document.release({ status: 200 });
  const data = await gate
    .acquire({ free: false, deadline: clock.now() + 5000, signal: new AbortController().signal })
    .then(() => 'granted' as const)
    .catch((error: unknown) => (error instanceof ApiError ? error.message : String(error)));
  assert.equal(data, 'granted', 'a data call with 5 s left goes: 10 s was the free document, not a data request');
  // A data request's own duration still counts.
  const slow = await gate.acquire({ free: false, deadline: clock.now() + 60_000, signal: new AbortController().signal });
  await clock.advance(10_000);
  slow.release({ status: 200 });
  const refused = await gate
    .acquire({ free: false, deadline: clock.now() + 5000, signal: new AbortController().signal })
    .then(() => undefined)
    .catch((error: unknown) => error);
  assert.ok(refused instanceof ApiError && refused.code === 'RATE_LIMITED', 'after a 10 s data request, 5 s is too short');
});
