/**
 * Wait or fail counts every cause of waiting, on a fake clock: the calls ahead behind the
 * in-flight cap and the request's own expected duration. A call that cannot be answered
 * in time is told at once, and none is sent so close to its deadline that it would be
 * aborted mid-flight.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/api/errors.js';
import type { PermitRequest, SendPermit } from '../../src/api/gate/account-gate.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { FakeClock } from './fake-clock.js';

function setup() {
  const clock = new FakeClock();
  const gate = new InProcessAccountGate({ clock, inFlight: { initial: 5 } });
  const ask = (deadlineIn: number): { permit: Promise<SendPermit>; state: () => 'waiting' | 'granted' | ApiError } => {
    let state: 'waiting' | 'granted' | ApiError = 'waiting';
    const request: PermitRequest = { free: false, deadline: clock.now() + deadlineIn, signal: new AbortController().signal };
    const permit = gate.acquire(request);
    permit.then(
      () => (state = 'granted'),
      (error: unknown) => (state = error as ApiError),
    );
    return { permit, state: () => state };
  };
  /** Five requests that take `ms` upstream: the gate learns how long a request takes. */
  const learn = async (ms: number): Promise<void> => {
    const calls = Array.from({ length: 5 }, () => ask(60_000));
    await clock.advance(ms);
    for (const call of calls) (await call.permit).release({ status: 200 });
  };
  return { clock, gate, ask, learn };
}

test('a call queued behind the in-flight cap whose turn and own request cannot fit its deadline is refused at once', async () => {
  const { clock, gate, ask, learn } = setup();
  await learn(2000);
  const inFlight = Array.from({ length: 5 }, () => ask(60_000));
  await clock.advance(0);
  assert.deepEqual(
    inFlight.map((c) => c.state()),
    Array.from({ length: 5 }, () => 'granted'),
  );
  // Behind 5 in flight of about 2 s each, then its own 2 s: 4 s.
  const tooTight = ask(3000);
  const fits = ask(5000);
  await clock.advance(0);
  const refusal = tooTight.state();
  assert.ok(refusal instanceof ApiError, `refused at once, not after waiting: ${String(refusal)}`);
  assert.equal(refusal.code, 'RATE_LIMITED');
  assert.equal(refusal.recoverable, true);
  assert.match(refusal.message, /in flight.*nothing was sent/);
  assert.equal(fits.state(), 'waiting', 'a call whose turn and request fit waits for its turn');
  await gate.close();
});

test('a call is not sent when too little of its deadline is left for the request itself', async () => {
  const { clock, gate, ask, learn } = setup();
  await learn(2000);
  const inFlight = Array.from({ length: 5 }, () => ask(60_000));
  await clock.advance(0);
  const queued = ask(5000);
  await clock.advance(0);
  assert.equal(queued.state(), 'waiting');
  // The requests ahead take twice as long as usual: when a slot frees, 1 s is left, the request takes 2.
  await clock.advance(4000);
  (await inFlight[0]?.permit)?.release({ status: 200 });
  await clock.advance(0);
  const refusal = queued.state();
  assert.ok(refusal instanceof ApiError, `not sent to be aborted mid-flight: ${String(refusal)}`);
  assert.match(refusal.message, /nothing was sent/);
  await gate.close();
});
