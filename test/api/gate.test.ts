/** The in-process account gate, its parts composed, on a fake clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/api/errors.js';
import type { PermitRequest, SendPermit } from '../../src/api/gate/account-gate.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { FakeClock } from '../helpers/fake-clock.js';

function setup(options: ConstructorParameters<typeof InProcessAccountGate>[0] = {}) {
  const clock = new FakeClock();
  const gate = new InProcessAccountGate({ clock, inFlight: { initial: 5 }, ...options });
  const ask = (extra: Partial<PermitRequest> = {}): { permit: Promise<SendPermit>; state: () => 'waiting' | 'granted' | ApiError } => {
    let state: 'waiting' | 'granted' | ApiError = 'waiting';
    const permit = gate.acquire({ free: false, deadline: clock.now() + 50_000, signal: new AbortController().signal, ...extra });
    permit.then(
      () => (state = 'granted'),
      (error: unknown) => (state = error as ApiError),
    );
    return { permit, state: () => state };
  };
  return { clock, gate, ask };
}

const headers = (clock: FakeClock, limit: number, remaining: number, resetInMs: number) => ({
  rateLimit: limit,
  rateRemaining: remaining,
  rateResetAt: clock.now() + resetInMs,
});

test('the gate sends no more than the server window allows, then lets the queue go at the reset instant', async () => {
  const { clock, gate, ask } = setup();
  const first = ask();
  await clock.advance(0);
  (await first.permit).release({ status: 200, headers: headers(clock, 3, 2, 2000) });
  const calls = [ask(), ask(), ask(), ask()];
  await clock.advance(0);
  assert.deepEqual(
    calls.map((c) => c.state()),
    ['granted', 'granted', 'waiting', 'waiting'],
  );
  for (const call of calls.slice(0, 2)) (await call.permit).release({ status: 200, headers: headers(clock, 3, 0, 2000) });
  await clock.advance(1999);
  assert.equal(calls[2]?.state(), 'waiting', 'not before the reset');
  await clock.advance(30);
  assert.deepEqual(
    calls.map((c) => c.state()),
    ['granted', 'granted', 'granted', 'granted'],
  );
  await gate.close();
});

test('wait or fail: a call whose turn comes after its deadline is refused at once with the wait it would have needed', async () => {
  const { clock, gate, ask } = setup();
  const first = ask();
  await clock.advance(0);
  (await first.permit).release({ status: 200, headers: headers(clock, 1, 0, 10_000) });
  const late = ask({ deadline: clock.now() + 3000 });
  const inTime = ask({ deadline: clock.now() + 20_000 });
  await clock.advance(0);
  const refusal = late.state();
  assert.ok(refusal instanceof ApiError, 'answered without waiting');
  assert.equal(refusal.code, 'RATE_LIMITED');
  assert.equal(refusal.recoverable, true);
  assert.equal(refusal.retryAfterSeconds, 11);
  assert.equal(inTime.state(), 'waiting', 'a call that fits its deadline keeps its place');
  await clock.advance(10_100);
  assert.equal(inTime.state(), 'granted');
  await gate.close();
});

test('every queued call is judged by its place in the queue, not only the first', async () => {
  const { clock, gate, ask } = setup();
  const first = ask();
  await clock.advance(0);
  // The server's window: 2 a window, 1 left now, resets in 1 s; a later reset teaches the length (1 s).
  (await first.permit).release({ status: 200, headers: headers(clock, 2, 1, 1000) });
  await clock.advance(1030);
  const probe = ask();
  await clock.advance(0);
  (await probe.permit).release({ status: 200, headers: headers(clock, 2, 1, 970) });
  const queue = Array.from({ length: 8 }, () => ask({ deadline: clock.now() + 2500 }));
  await clock.advance(0);
  const states = queue.map((c) => c.state());
  // One goes now, two in each of the next windows (at +1 s and +2 s); the rest would be later than 2.5 s.
  assert.equal(states.filter((s) => s === 'granted').length, 1);
  assert.equal(states.filter((s) => s === 'waiting').length, 4);
  const refused = states.filter((s): s is ApiError => s instanceof ApiError);
  assert.equal(refused.length, 3);
  assert.ok(refused.every((e) => e.code === 'RATE_LIMITED' && (e.retryAfterSeconds ?? 0) >= 3));
  await gate.close();
});

test('a pause holds every queued call until it ends', async () => {
  const { clock, gate, ask } = setup();
  gate.pause(clock.now() + 4000);
  const calls = [ask(), ask()];
  await clock.advance(3990);
  assert.deepEqual(
    calls.map((c) => c.state()),
    ['waiting', 'waiting'],
  );
  assert.ok((await gate.view()).paused_until);
  await clock.advance(20);
  assert.deepEqual(
    calls.map((c) => c.state()),
    ['granted', 'granted'],
  );
  await gate.close();
});

test('the quota latch refuses data requests at once and lets free endpoints through; the view shows 0 left and the reset', async () => {
  const { clock, gate, ask } = setup();
  const resetAt = clock.now() + 3_600_000;
  gate.latchQuota(resetAt);
  const data = ask();
  const free = ask({ free: true });
  await clock.advance(0);
  const refusal = data.state();
  assert.ok(refusal instanceof ApiError);
  assert.equal(refusal.code, 'QUOTA_EXHAUSTED');
  assert.equal(refusal.retryAfterSeconds, 3600);
  assert.equal(free.state(), 'granted');
  const view = await gate.view();
  assert.equal(view.quota_exhausted, true);
  assert.equal(view.quota_remaining, 0);
  assert.equal(view.quota_resets_at, new Date(resetAt).toISOString());
  await gate.close();
});

test('the in-flight cap: the sixth request waits for a slot, and a release hands it over at once', async () => {
  const { clock, gate, ask } = setup();
  const calls = Array.from({ length: 6 }, () => ask());
  await clock.advance(0);
  assert.equal(calls.filter((c) => c.state() === 'granted').length, 5);
  (await (calls[0] as { permit: Promise<SendPermit> }).permit).release({ status: 200 });
  await clock.advance(0);
  assert.equal(calls[5]?.state(), 'granted');
  assert.equal((await gate.view()).in_flight, 5);
  await gate.close();
});

test('IN_FLIGHT_EXCEEDED halves what this process sends at once', async () => {
  const { clock, gate, ask } = setup();
  gate.inFlightRefused();
  const calls = Array.from({ length: 5 }, () => ask());
  await clock.advance(0);
  assert.equal(calls.filter((c) => c.state() === 'granted').length, 2);
  assert.equal((await gate.view()).max_in_flight, 2);
  await gate.close();
});

test('a queued call that is aborted leaves the queue and never gets a permit', async () => {
  const { clock, gate, ask } = setup({ inFlight: { initial: 1, max: 1 } });
  const first = ask();
  const controller = new AbortController();
  const second = ask({ signal: controller.signal });
  const third = ask();
  await clock.advance(0);
  controller.abort();
  await clock.advance(0);
  assert.ok(second.state() instanceof ApiError);
  (await first.permit).release({ status: 200 });
  await clock.advance(0);
  assert.equal(third.state(), 'granted', 'the slot went to the next one still waiting');
  assert.equal((await gate.view()).queued, 0);
  await gate.close();
});

test('without rate headers the gate keeps a local 60-a-minute window and opens it again each minute', async () => {
  const { clock, gate, ask } = setup();
  const calls = Array.from({ length: 200 }, () => ask({ deadline: clock.now() + 300_000 }));
  const released = new Set<number>();
  const grantedAfter = async (ms: number): Promise<number> => {
    for (let step = 0; step < ms / 10; step += 1) {
      await clock.advance(10);
      for (const [i, call] of calls.entries()) {
        if (call.state() !== 'granted' || released.has(i)) continue;
        released.add(i);
        (await call.permit).release({ status: 200 });
      }
    }
    return released.size;
  };
  assert.equal(await grantedAfter(500), 60, 'the first minute: 60 requests, then the window is spent');
  assert.equal(await grantedAfter(59_000), 60, 'nothing more inside the minute');
  assert.equal(await grantedAfter(1000), 120, 'the next minute opens');
  assert.equal(await grantedAfter(60_000), 180, 'and the next: never stopped for good');
  await gate.close();
});
