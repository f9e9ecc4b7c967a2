/**
 * Wait or fail among the account's users, on a fake clock: the fair-share gate hands the
 * account gate one request at a time, so a burst's calls that cannot be served before their
 * deadline waited for it in the fair-share queues and were refused only then (through the
 * --http server, 58 of 200 after 11 s each, told to come back in 1 s). They are told at
 * once, with the wait, and every call that could be served still is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/api/errors.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { FairShareGate } from '../../src/team/fair-share-gate.js';
import { lateInTurns, LateTurns } from '../../src/team/late-turns.js';
import { FakeClock, settle } from '../helpers/fake-clock.js';

const PER_WINDOW = 60;
const WINDOW_MS = 6000;
const LATENCY_MS = 50;
const DEADLINE_MS = 10_000;

interface Outcome {
  member: string;
  servedAt?: number;
  refusedAt?: number;
  error?: ApiError;
}

interface Upstream {
  perWindow: number;
  latencyMs: number;
}

/**
 * `calls` (member, how many) queued at once through the fair-share gate (or, `alone`, the
 * account gate by itself, as over stdio), against a server whose fixed windows start now and
 * which names them in its headers; runs until every deadline has passed.
 */
async function burst(
  calls: [string, number][],
  upstream: Upstream = { perWindow: PER_WINDOW, latencyMs: LATENCY_MS },
  alone = false,
): Promise<{ began: number; outcomes: Outcome[] }> {
  const clock = new FakeClock();
  const began = clock.now();
  const { perWindow, latencyMs } = upstream;
  const inner = new InProcessAccountGate({ clock, window: { limit: perWindow, localWindowMs: WINDOW_MS }, inFlight: { max: 5 } });
  const gate = alone ? inner : new FairShareGate(inner, { who: (request) => request.call?.caller?.subject, clock, pacer: false });
  const used = new Map<number, number>();
  const outcomes: Outcome[] = [];
  const stop = new AbortController();
  for (const [member, count] of calls)
    for (let i = 0; i < count; i += 1) {
      const outcome: Outcome = { member };
      outcomes.push(outcome);
      const call = {
        caller: { subject: member, clientId: member },
        signal: stop.signal,
        deadline: clock.now() + DEADLINE_MS,
        record: { units: 0, upstreamRequests: 0, gateWaitMs: 0 },
      };
      void gate.acquire({ free: false, deadline: call.deadline, signal: stop.signal, call }).then(
        (permit) => {
          outcome.servedAt = clock.now();
          const window = Math.floor((clock.now() - began) / WINDOW_MS);
          used.set(window, (used.get(window) ?? 0) + 1);
          clock.after(latencyMs, () =>
            permit.release({
              status: 200,
              headers: {
                rateLimit: perWindow,
                rateRemaining: perWindow - (used.get(window) ?? 0),
                rateResetAt: began + (window + 1) * WINDOW_MS,
              },
            }),
          );
        },
        (error: unknown) => {
          outcome.refusedAt = clock.now();
          if (error instanceof ApiError) outcome.error = error;
        },
      );
    }
  await settle();
  await clock.advance(DEADLINE_MS + 1000);
  stop.abort();
  await settle();
  return { began, outcomes };
}

test("a burst of 200 with a 10 s deadline beside another member's call: the 81 that two windows cannot hold are told at once, with the wait; the 120 others are served, the other member's among them", async () => {
  const { began, outcomes } = await burst([
    ['alice', 200],
    ['bob', 1],
  ]);
  const served = outcomes.filter((o) => o.servedAt !== undefined);
  const refused = outcomes.filter((o) => o.refusedAt !== undefined);
  assert.equal(served.length, 2 * PER_WINDOW, `${served.length} served`);
  assert.equal(refused.length, 201 - 2 * PER_WINDOW, `${refused.length} refused`);
  const bob = outcomes.find((o) => o.member === 'bob');
  assert.ok(bob?.servedAt !== undefined, `bob's call was served (${bob?.error?.message ?? 'no answer'})`);
  const slowest = Math.max(...refused.map((o) => (o.refusedAt ?? 0) - began));
  // Told once the server's window is known (the first answer, 50 ms in), not at their deadline.
  assert.ok(slowest <= 2 * LATENCY_MS, `the last refusal came ${slowest} ms into the burst`);
  for (const o of refused) {
    assert.equal(o.error?.code, 'RATE_LIMITED');
    // Their turn would have come in the third window, 12 s from the start.
    assert.ok((o.error?.retryAfterSeconds ?? 0) >= 11, `told to come back in ${o.error?.retryAfterSeconds} s`);
  }
});

test('behind answers of a second each, five at a time, the calls that cannot go before their deadline are told once the pace is known', async () => {
  const slow: Upstream = { perWindow: 1000, latencyMs: 1000 };
  const { began, outcomes } = await burst([['alice', 200]], slow);
  const served = outcomes.filter((o) => o.servedAt !== undefined);
  const refused = outcomes.filter((o) => o.refusedAt !== undefined);
  assert.equal(served.length + refused.length, 200, 'every call had its answer');
  // Held against the account gate by itself (as over stdio), which sees the whole queue: it
  // knows the queue's pace once a request sent on a slot that came back has answered, 2 s in.
  const byItself = await burst([['alice', 200]], slow, true);
  const servedAlone = byItself.outcomes.filter((o) => o.servedAt !== undefined).length;
  assert.ok(servedAlone > 0 && served.length >= servedAlone, `${served.length} served, ${servedAlone} by the account gate alone`);
  const toldBy = (run: { began: number; outcomes: Outcome[] }, ms: number): number =>
    run.outcomes.filter((o) => o.refusedAt !== undefined && o.refusedAt - run.began <= ms).length;
  const alone = toldBy(byItself, 2000);
  assert.ok(alone > 100 && toldBy({ began, outcomes }, 2000) >= alone, `${toldBy({ began, outcomes }, 2000)} told by 2 s, ${alone} alone`);
  // Told to come back at their own turns, not all at once.
  assert.ok(new Set(refused.map((o) => o.error?.retryAfterSeconds)).size > 10, 'the waits told differ');
});

test('a refusal at once rests on the quickest of the latest slot times, the wait told on their average: one slow answer is a moment', () => {
  const late = new LateTurns();
  // Ten data requests: nine held their slots 100 ms, one 3 s (a loaded moment).
  for (let i = 0; i < 10; i += 1) late.heard(late.sent(false, i), { status: 200 }, i + (i === 4 ? 3000 : 100));
  const now = 10_000;
  // 40 ahead, the five slots free: 8 waves.
  assert.equal(late.turnAt(40, now, 'soonest') - now, 8 * 100);
  assert.equal(late.turnAt(40, now, 'expected') - now, 8 * 390);
  // A slot held through the retry wait after IN_FLIGHT_EXCEEDED is the client's wait, not the pace.
  late.heard(late.sent(false, now), { status: 429, code: 'IN_FLIGHT_EXCEEDED' }, now + 1000);
  assert.equal(late.turnAt(40, now, 'expected') - now, 8 * 390);
});

test('the rounds count only the calls kept: a call behind refused ones is judged by those still ahead of it', () => {
  const a = [{ id: 'a0' }, { id: 'a1' }, { id: 'a2' }];
  const b = [{ id: 'b0' }];
  const seen = new Map<string, number>();
  // a1 is refused whatever its place: a2 then has a0 and b0 ahead of it, not three.
  const late = lateInTurns([a, b], (waiter, ahead) => {
    seen.set(waiter.id, ahead);
    return waiter.id === 'a1';
  });
  assert.deepEqual(
    late.map((l) => [l.waiter.id, l.ahead, l.place]),
    [['a1', 2, 2]],
  );
  assert.deepEqual(Object.fromEntries(seen), { a0: 0, b0: 0, a1: 2, a2: 2 });
});
