import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { FairShareGate } from '../../src/team/fair-share-gate.js';
import { FakeClock, settle } from '../helpers/fake-clock.js';

const PER_WINDOW = 60;
const WINDOW_MS = 60_000;
const LATENCY_MS = 50;

/** The account gate (60 a window, 5 in flight) behind the fair-share gate, on a fake clock. */
function desk(): { clock: FakeClock; gate: FairShareGate; as: (user: string) => void } {
  const clock = new FakeClock();
  let user = 'nobody';
  const inner = new InProcessAccountGate({ clock, window: { limit: PER_WINDOW, localWindowMs: WINDOW_MS }, inFlight: { max: 5 } });
  const gate = new FairShareGate(inner, { who: () => user, clock });
  return { clock, gate, as: (name) => (user = name) };
}

/** Queues `count` calls for `user`; each holds its permit for the upstream's latency. Returns the grant log. */
function burst(d: ReturnType<typeof desk>, user: string, count: number, grants: string[], signal: AbortSignal): void {
  d.as(user);
  for (let i = 0; i < count; i += 1) {
    void d.gate.acquire({ free: false, deadline: d.clock.now() + 3_600_000, signal }).then(
      (permit) => {
        grants.push(user);
        d.clock.after(LATENCY_MS, () => permit.release({ status: 200 }));
      },
      () => undefined,
    );
  }
}

test("one member's burst of 500 calls delays another member's single call by one turn at most", async () => {
  const d = desk();
  const grants: string[] = [];
  const stop = new AbortController();
  burst(d, 'alice', 500, grants, stop.signal);
  await settle();
  assert.equal(grants.length, 5, "alice's first five calls hold the account's five slots");
  const alreadyServed = grants.length;
  burst(d, 'bob', 1, grants, stop.signal);
  await d.clock.advance(1000);
  const bobAt = grants.indexOf('bob');
  assert.ok(bobAt >= 0, 'bob was served within the first second');
  const aliceBefore = bobAt - alreadyServed;
  assert.ok(aliceBefore <= 1, `after bob asked, ${aliceBefore} of alice's calls went first (at most the one already at the gate)`);
  stop.abort();
  await settle();
});

test('four busy members share the window and the in-flight slots evenly, window after window', async () => {
  const d = desk();
  const grants: string[] = [];
  const stop = new AbortController();
  const members = ['alice', 'bob', 'carol', 'dave'];
  // Unequal appetites: the largest asks for 8 times what the smallest does.
  members.forEach((m, i) => burst(d, m, 40 * (i + 1) * 2, grants, stop.signal));
  await d.clock.advance(2 * WINDOW_MS + 1000);
  assert.ok(grants.length >= 2 * PER_WINDOW, `two windows were used (${grants.length} grants)`);
  for (const window of [grants.slice(0, PER_WINDOW), grants.slice(PER_WINDOW, 2 * PER_WINDOW)]) {
    const shares = members.map((m) => window.filter((g) => g === m).length);
    const fair = PER_WINDOW / members.length;
    for (const [i, share] of shares.entries())
      assert.ok(Math.abs(share - fair) <= 1, `${members[i] ?? ''} had ${share} of ${PER_WINDOW} (shares ${shares.join('/')})`);
  }
  stop.abort();
  await settle();
});

test('without the fair-share gate the same burst would have made bob wait behind all of it', async () => {
  // The control: the account gate alone is one FIFO queue, so the test above can fail.
  const clock = new FakeClock();
  const inner = new InProcessAccountGate({ clock, window: { limit: PER_WINDOW, localWindowMs: WINDOW_MS }, inFlight: { max: 5 } });
  const grants: string[] = [];
  const stop = new AbortController();
  const queue = (user: string, count: number): void => {
    for (let i = 0; i < count; i += 1)
      void inner.acquire({ free: false, deadline: clock.now() + 3_600_000, signal: stop.signal }).then(
        (permit) => {
          grants.push(user);
          clock.after(LATENCY_MS, () => permit.release({ status: 200 }));
        },
        () => undefined,
      );
  };
  queue('alice', 500);
  queue('bob', 1);
  await clock.advance(1000);
  assert.equal(grants.indexOf('bob'), -1, 'bob is still waiting behind alice');
  stop.abort();
  await settle();
});
