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
import { FakeClock } from '../helpers/fake-clock.js';

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

test('with the headers showing others on the account (a share of 1 in flight), queued calls that cannot fit are refused at once, each with a wait its retry could meet', async () => {
  const clock = new FakeClock();
  const gate = new InProcessAccountGate({ clock });
  const ask = (deadlineIn: number): { at: number; state: () => 'waiting' | 'granted' | ApiError; permit: Promise<SendPermit> } => {
    let state: 'waiting' | 'granted' | ApiError = 'waiting';
    const permit = gate.acquire({ free: false, deadline: clock.now() + deadlineIn, signal: new AbortController().signal });
    permit.then(
      () => (state = 'granted'),
      (error: unknown) => (state = error as ApiError),
    );
    return { at: clock.now(), state: () => state, permit };
  };
  // Three 3 s requests (one answer is a moment, not a pace: gate-certain.test.ts) whose
  // headers show 27 others' requests beside our 3: a share of 1 in flight.
  const warmUps = [1, 2, 3].map(() => ask(60_000));
  await clock.advance(3000);
  for (const warmUp of warmUps)
    (await warmUp.permit).release({ status: 200, headers: { rateLimit: 60, rateRemaining: 30, rateResetAt: clock.now() + 57_000 } });
  assert.equal(gate.viewNow().max_in_flight, 1, 'the share in force');
  const sent = ask(4000);
  const queued = Array.from({ length: 3 }, () => ask(4000));
  await clock.advance(0);
  assert.equal(sent.state(), 'granted');
  const refusals = queued.map((call) => call.state());
  const retryAts: number[] = [];
  for (const refusal of refusals) {
    assert.ok(refusal instanceof ApiError, `refused at once, not after the request ahead answered: ${String(refusal)}`);
    assert.equal(refusal.code, 'RATE_LIMITED');
    retryAts.push(clock.now() + (refusal.retryAfterSeconds ?? 0) * 1000);
  }
  // A retry at its told time finds the request ahead answered (it takes about 3 s) ...
  for (const at of retryAts) assert.ok(at >= sent.at + 3000, `a retry at +${at - sent.at} ms would queue behind the request in flight`);
  // ... and no two retries are told to come at once into a share of 1.
  assert.equal(new Set(retryAts).size, retryAts.length, `distinct retry times: ${retryAts.map((at) => at - sent.at).join(', ')}`);
  await gate.close();
});

test('a call refused behind the in-flight cap is told a wait past the calls ahead of it, even where the window would reset sooner', async () => {
  const clock = new FakeClock();
  const gate = new InProcessAccountGate({ clock });
  const ask = (deadlineIn: number): { state: () => 'waiting' | 'granted' | ApiError; permit: Promise<SendPermit> } => {
    let state: 'waiting' | 'granted' | ApiError = 'waiting';
    const permit = gate.acquire({ free: false, deadline: clock.now() + deadlineIn, signal: new AbortController().signal });
    permit.then(
      () => (state = 'granted'),
      (error: unknown) => (state = error as ApiError),
    );
    return { state: () => state, permit };
  };
  // Three 1 s requests whose headers show 6 others' beside our 3 (a share of 1 in flight),
  // in a window of 60 that resets in 5 s.
  const warmUps = [1, 2, 3].map(() => ask(60_000));
  await clock.advance(1000);
  for (const warmUp of warmUps)
    (await warmUp.permit).release({ status: 200, headers: { rateLimit: 60, rateRemaining: 51, rateResetAt: clock.now() + 5000 } });
  const calls = Array.from({ length: 58 }, () => ask(50_000));
  await clock.advance(0);
  const refusals = calls.map((call) => call.state()).filter((state): state is ApiError => state instanceof ApiError);
  // One at a time, a second each: the 49th call onwards cannot be answered within 50 s.
  assert.ok(refusals.length >= 5, `refused ${refusals.length}`);
  // The window's reset (5 s) is no turn for them: the 48 calls ahead take 48 s at one a
  // second, and each refused call's retry comes behind those refused before it, in a share of 1.
  const told = refusals.map((refusal) => refusal.retryAfterSeconds ?? 0);
  assert.ok(Math.min(...told) >= 48, `told to retry after ${told.join(', ')} s: ${refusals[0]?.message ?? ''}`);
  assert.deepEqual(
    told,
    [...told].sort((a, b) => a - b),
    'later for each call refused after another',
  );
  assert.equal(new Set(told).size, told.length, `one retry a turn: ${told.join(', ')} s`);
  await gate.close();
});
