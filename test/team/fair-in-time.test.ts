/**
 * Fair in time, on a fake clock: while one member bursts, another member's call gets its
 * turn within a few pacing intervals (the window's length over its limit), not at the next
 * window, and the account still spends its windows whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { FairShareGate } from '../../src/team/fair-share-gate.js';
import { WindowPacer } from '../../src/team/window-pacer.js';
import { FakeClock, settle } from '../helpers/fake-clock.js';

const PER_WINDOW = 60;
const WINDOW_MS = 6000;
const LATENCY_MS = 50;
/** One pacing interval: the window's length over its limit. */
const INTERVAL_MS = WINDOW_MS / PER_WINDOW;

interface Run {
  /** How long each light call waited for its permit. */
  lightWaits: number[];
  /** Permits given in each window of the run. */
  perWindow: number[];
}

/**
 * alice queues 500 calls at once; bob and carol call once every 2 s each, for `windows`
 * windows. Each permit is held for the upstream's latency.
 */
async function burstBesideLightCalls(pacer: boolean, windows: number): Promise<Run> {
  const clock = new FakeClock();
  let user = 'nobody';
  const inner = new InProcessAccountGate({ clock, window: { limit: PER_WINDOW, localWindowMs: WINDOW_MS }, inFlight: { max: 5 } });
  const gate = new FairShareGate(inner, { who: () => user, clock, ...(pacer ? {} : { pacer: false }) });
  const stop = new AbortController();
  const grants: number[] = [];
  const lightWaits: number[] = [];
  const call = (who: string, onGrant?: (waitedMs: number) => void): void => {
    user = who;
    const asked = clock.now();
    void gate.acquire({ free: false, deadline: clock.now() + 3_600_000, signal: stop.signal }).then(
      (permit) => {
        grants.push(clock.now());
        onGrant?.(clock.now() - asked);
        clock.after(LATENCY_MS, () => permit.release({ status: 200 }));
      },
      () => undefined,
    );
  };
  // bob has called before: the desk is known to have more than one member.
  call('bob');
  await clock.advance(LATENCY_MS + 1);
  const began = clock.now();
  grants.length = 0;
  for (let i = 0; i < 500; i += 1) call('alice');
  await settle();
  for (let t = 500; t < windows * WINDOW_MS; t += 2000) {
    await clock.advance(began + t - clock.now());
    call('bob', (w) => lightWaits.push(w));
    await clock.advance(1000);
    call('carol', (w) => lightWaits.push(w));
  }
  await clock.advance(began + windows * WINDOW_MS - clock.now());
  // The first window opened at bob's first call; each later one at the first request after the last rolled.
  const perWindow: number[] = [];
  let windowStart = began - LATENCY_MS - 1;
  for (let w = 0; w < windows; w += 1) {
    const inWindow = grants.filter((at) => at >= windowStart && at < windowStart + WINDOW_MS);
    perWindow.push(inWindow.length + (w === 0 ? 1 : 0));
    windowStart = grants.find((at) => at >= windowStart + WINDOW_MS) ?? windowStart + WINDOW_MS;
  }
  stop.abort();
  await settle();
  return { lightWaits, perWindow };
}

test("beside one member's burst of 500, every light call is served within a few pacing intervals, and every window is spent whole", async () => {
  const { lightWaits, perWindow } = await burstBesideLightCalls(true, 3);
  assert.ok(lightWaits.length >= 8, `${lightWaits.length} light calls were served`);
  const slowest = Math.max(...lightWaits);
  assert.ok(slowest <= 3 * INTERVAL_MS, `the slowest light call waited ${slowest} ms (waits ${lightWaits.join(', ')})`);
  for (const [i, used] of perWindow.entries())
    assert.ok(used >= 0.95 * PER_WINDOW, `window ${i + 1} used ${used} of ${PER_WINDOW} (${perWindow.join('/')})`);
});

test('the control: without the pace, the burst takes each window in its first second and a light call waits for the next window', async () => {
  const { lightWaits } = await burstBesideLightCalls(false, 3);
  const slowest = Math.max(...lightWaits);
  assert.ok(slowest > WINDOW_MS / 3, `the slowest light call waited ${slowest} ms`);
});

test('a member alone keeps the whole window at once: nobody else is there to wait', () => {
  const clock = new FakeClock();
  const pacer = new WindowPacer({ clock });
  pacer.saw('alice');
  const window = { remaining: 40, resetsAt: clock.now() + 5000 };
  for (let i = 0; i < 40; i += 1) assert.equal(pacer.delay({ ...window, remaining: 40 - i }), 0);
  pacer.saw('bob');
  // Two members: the same window is paced, a few at once, then about one each 5000/40 ms.
  const delays = Array.from({ length: 8 }, (_, i) => pacer.delay({ ...window, remaining: 40 - i }));
  assert.deepEqual(delays.slice(0, 5), [0, 0, 0, 0, 0], 'a burst of five goes at once');
  assert.ok(
    delays[5] !== undefined && delays[5] > 0 && delays[5] <= 2 * (5000 / 40),
    `the sixth waits its interval (${delays.join(', ')})`,
  );
});

test("a shared gate's reset seen a few milliseconds apart is one window: the pace holds", () => {
  const clock = new FakeClock();
  const pacer = new WindowPacer({ clock });
  pacer.saw('alice');
  pacer.saw('bob');
  const reset = clock.now() + 5000;
  // Ten views in a row, each naming the reset a millisecond or two off, as Redis's relative times give it.
  const delays = Array.from({ length: 10 }, (_, i) => pacer.delay({ remaining: 40 - i, resetsAt: reset + (i % 3) - 1 }));
  assert.ok(
    delays.some((d) => d > 0),
    `the burst is held to the pace (${delays.join(', ')})`,
  );
});

test("a node's own plan never holds its members back beyond one interval after the account's last request", async () => {
  // Node A planned the window when it opened; other nodes then spent it faster than A's plan
  // (their plans are their own): at 30 s A finds 20 of 60 left where its plan expected 30.
  const clock = new FakeClock();
  const nodeA = new WindowPacer({ clock });
  nodeA.saw('alice');
  nodeA.saw('bob');
  const reset = clock.now() + 60_000;
  assert.equal(nodeA.delay({ remaining: 60, resetsAt: reset }), 0);
  await clock.advance(30_000);
  // bob's call on node A: from here, one interval at the pace the 20 left allow (30 s / 20).
  const asked = clock.now();
  for (let d = nodeA.delay({ remaining: 20, resetsAt: reset }); d > 0; d = nodeA.delay({ remaining: 20, resetsAt: reset }))
    await clock.advance(d);
  const waited = clock.now() - asked;
  assert.ok(waited <= 30_000 / 20 + 1, `bob waited ${waited} ms on node A's plan`);
});

test('members who stopped calling a quarter of an hour ago no longer pace the window', async () => {
  const clock = new FakeClock();
  const pacer = new WindowPacer({ clock });
  pacer.saw('alice');
  pacer.saw('bob');
  assert.equal(pacer.pacing(), true);
  await clock.advance(15 * 60_000 + 1);
  pacer.saw('alice');
  assert.equal(pacer.pacing(), false);
});
