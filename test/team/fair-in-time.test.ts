/**
 * Fair in time, on a fake clock: while one member bursts, another member's call gets its
 * turn within a few pacing intervals (the window's length over its limit), not at the next
 * window, wherever in the window it is asked (its last second and just after it turns
 * included; in one process or across nodes taking turns as through Redis: the desk of
 * test/helpers/burst-desk.ts), and the account still spends its windows whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { FairShareGate } from '../../src/team/fair-share-gate.js';
import { WindowPacer } from '../../src/team/window-pacer.js';
import { runBurstDesk, type DeskPlan } from '../helpers/burst-desk.js';
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

/**
 * alice keeps 16 calls out (as bench/hosted.mjs --burst does) for four windows; bob, carol and
 * dave ask one call each at these instants of every window: through it, in its last second
 * and just after it turns.
 */
const DESK: Omit<DeskPlan, 'nodes'> = {
  windowMs: WINDOW_MS,
  perWindow: PER_WINDOW,
  inFlight: 5,
  latencyMs: 60,
  hopMs: 2,
  burstConcurrency: 16,
  windows: 4,
  lightAt: [10, 500, 1500, 2500, 3500, 4500, 5000, 5250, 5500, 5750, 5900, 5990],
};

async function assertFairInTime(nodes: number, mostIntervals: number): Promise<void> {
  const run = await runBurstDesk({ ...DESK, nodes });
  assert.equal(run.light.length, DESK.windows * DESK.lightAt.length, 'every light call was served');
  const slowest = run.light[0];
  assert.ok(
    slowest && slowest.intervals <= mostIntervals,
    `the slowest light calls: ${run.light
      .slice(0, 5)
      .map((c) => `${c.intervals.toFixed(1)} intervals (asked ${c.askedAt} ms into its window)`)
      .join(', ')}`,
  );
  assert.equal(run.perWindow.length, DESK.windows);
  for (const [i, used] of run.perWindow.entries())
    assert.ok(used >= 0.95 * PER_WINDOW, `window ${i + 1} used ${used} of ${PER_WINDOW} (${run.perWindow.join('/')})`);
  assert.equal(run.refused, 0, 'the upstream refused nothing');
}

test('in one process, a light call waits at most two pacing intervals wherever in the window it is asked, its last second included; every window is spent', async () => {
  await assertFairInTime(1, 2);
});

test('across three nodes taking turns as through Redis, the same: at most two intervals, every window spent', async () => {
  await assertFairInTime(3, 2);
});

test('the control: without the pace, the burst takes each window in its first second and a light call waits for the next window', async () => {
  const { lightWaits } = await burstBesideLightCalls(false, 3);
  const slowest = Math.max(...lightWaits);
  assert.ok(slowest > WINDOW_MS / 3, `the slowest light call waited ${slowest} ms`);
});

test("after the window's opening burst the pace lets no burst through, late in the window included: its last request goes in its last interval", async () => {
  // A busy member's pump, alone: it asks the pace, sends when told 0, else sleeps what it is told.
  const clock = new FakeClock();
  const pacer = new WindowPacer({ clock });
  pacer.saw('alice');
  pacer.saw('bob');
  const opened = clock.now();
  const reset = opened + WINDOW_MS;
  let remaining = PER_WINDOW;
  const sentAt: number[] = [];
  while (remaining > 0 && clock.now() < reset) {
    const delay = pacer.delay({ remaining, resetsAt: reset });
    if (delay > 0) await clock.advance(delay);
    else {
      sentAt.push(clock.now() - opened);
      remaining -= 1;
    }
  }
  assert.equal(sentAt.length, PER_WINDOW, `the whole window is spent (${sentAt.join(', ')})`);
  // The first five go at once (the account's in-flight slots after a quiet spell); after them,
  // one at a time. Five at once in the window's last second spent it before it ended (the plan
  // was made again there, and the burst measured on the new plan's span was whole again): a
  // member who asked then waited for the next window.
  const afterOpening = sentAt.slice(5);
  for (let i = 1; i < afterOpening.length; i += 1) {
    const gap = (afterOpening[i] ?? 0) - (afterOpening[i - 1] ?? 0);
    assert.ok(gap >= INTERVAL_MS / 2, `requests ${gap} ms apart at ${afterOpening[i] ?? 0} ms (${sentAt.join(', ')})`);
  }
  const last = sentAt.at(-1) ?? 0;
  assert.ok(last >= WINDOW_MS - 1.5 * INTERVAL_MS, `the window's last request went ${last} ms after it opened`);
});

test("a node that first looks at a window late in it, once it knows the window's length, sends no burst there", async () => {
  const clock = new FakeClock();
  const pacer = new WindowPacer({ clock });
  pacer.saw('alice');
  pacer.saw('bob');
  // One window seen from its start: the next reset, a window later, gives the length.
  const firstReset = clock.now() + WINDOW_MS;
  assert.equal(pacer.delay({ remaining: PER_WINDOW, resetsAt: firstReset }), 0);
  // This node's members are quiet until 5.4 s into the next window, which the others left 10 of.
  await clock.advance(WINDOW_MS + 5400);
  const reset = firstReset + WINDOW_MS;
  let atOnce = 0;
  for (let remaining = 10; remaining > 0 && pacer.delay({ remaining, resetsAt: reset }) === 0; remaining -= 1) atOnce += 1;
  // The window's last 600 ms at the pace its 10 requests allow, not five of them at once.
  assert.ok(atOnce <= 2, `${atOnce} requests went at once 5.4 s into the window`);
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
