/**
 * Wait or fail counts the waves ahead of a queued call at the pace the slots actually
 * achieve, on a fake clock: a burst the account can serve inside the deadline is served
 * whatever its first answers took, and one it cannot is told so at once, with the wait.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/api/errors.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { QueuePace } from '../../src/api/gate/queue-pace.js';
import { FakeClock } from '../helpers/fake-clock.js';

interface Outcome {
  /** When the call's permit came, or its refusal. */
  at: number;
  served: boolean;
  /** When its request answered (served calls). */
  answeredAt?: number;
  error?: ApiError;
}

/** A large account's window, which the burst never spends: only the 5 in flight limit the pace. */
const generous = (answered: number, resetAt: number) => ({ rateLimit: 100_000, rateRemaining: 100_000 - answered, rateResetAt: resetAt });

/**
 * `calls` calls at once against an upstream allowing 5 in flight, whose n-th request takes
 * `takes(n)` ms; every call has `deadlineMs`. Runs the fake clock until each call ended.
 */
async function burst(calls: number, deadlineMs: number, takes: (n: number) => number): Promise<Outcome[]> {
  const clock = new FakeClock();
  const gate = new InProcessAccountGate({ clock });
  const started = clock.now();
  let sent = 0;
  let answered = 0;
  const outcomes = Array.from({ length: calls }, () =>
    gate.acquire({ free: false, deadline: started + deadlineMs, signal: new AbortController().signal }).then(
      (permit) =>
        new Promise<Outcome>((resolve) => {
          const at = clock.now();
          clock.after(takes((sent += 1)), () => {
            permit.release({ status: 200, headers: generous((answered += 1), started + 120_000) });
            resolve({ at, served: true, answeredAt: clock.now() });
          });
        }),
      (error: unknown) => {
        assert.ok(error instanceof ApiError, String(error));
        return { at: clock.now(), served: false, error };
      },
    ),
  );
  let ended = 0;
  for (const outcome of outcomes) void outcome.then(() => (ended += 1));
  while (ended < calls) {
    assert.ok(clock.now() - started < deadlineMs + 10_000, `${calls - ended} calls never ended`);
    await clock.advance(10);
  }
  await gate.close();
  return Promise.all(outcomes);
}

test('500 calls at once behind first answers of 600 ms, then 20 ms, are all served', async () => {
  const outcomes = await burst(500, 50_000, (n) => (n <= 5 ? 600 : 20));
  const refused = outcomes.filter((o) => !o.served);
  assert.equal(refused.length, 0, `refused: ${refused[0]?.error?.message ?? ''}`);
  const took = Math.max(...outcomes.map((o) => o.answeredAt ?? 0)) - Math.min(...outcomes.map((o) => o.at));
  assert.ok(took < 5000, `served in about 600 ms and 99 waves of 20 ms, not ${took} ms`);
});

test('a burst the pace cannot serve before the deadline is told so at once, and every call it keeps is served in time', async () => {
  // 600 ms a request, 5 at once: about 8 a second, some 400 calls in 50 s.
  const outcomes = await burst(500, 50_000, () => 600);
  const start = Math.min(...outcomes.map((o) => o.at));
  const refused = outcomes.filter((o) => !o.served);
  const served = outcomes.filter((o) => o.served);
  assert.ok(served.length >= 380, `served ${served.length}: the calls the pace serves in time are kept`);
  assert.ok(refused.length >= 60, `refused ${refused.length}: the calls the pace cannot serve in time are not kept waiting`);
  for (const o of served) assert.ok((o.answeredAt ?? Infinity) <= start + 50_000, 'a call kept is answered before its deadline');
  // At once: as soon as a request sent in the burst answered (the second wave, 1.2 s), not at the deadline.
  for (const o of refused) {
    assert.ok(o.at - start <= 1200, `refused after ${o.at - start} ms`);
    assert.equal(o.error?.code, 'RATE_LIMITED');
    assert.match(o.error?.message ?? '', /nothing was sent/);
    // The wait told is the turn at the pace seen: beyond the deadline, and no further than the burst's end.
    const retryMs = (o.error?.retryAfterSeconds ?? 0) * 1000;
    assert.ok(retryMs > 48_000 && retryMs < 70_000, `retry_after_seconds ${o.error?.retryAfterSeconds}`);
  }
});

test('the pace is re-estimated as answers come: an upstream that slows mid-burst gets the calls it can no longer serve refused then', async () => {
  // 20 ms a request for the first 300, then 400 ms: 300 go in 1.2 s, then 12.5 a second, some 230 more in 20 s.
  const outcomes = await burst(600, 20_000, (n) => (n <= 300 ? 20 : 400));
  const start = Math.min(...outcomes.map((o) => o.at));
  const refused = outcomes.filter((o) => !o.served);
  assert.ok(refused.length >= 40, `refused ${refused.length}: the calls the slower pace cannot serve in time`);
  assert.ok(outcomes.length - refused.length >= 500, `served ${outcomes.length - refused.length}`);
  for (const o of outcomes.filter((c) => c.served)) assert.ok((o.answeredAt ?? Infinity) <= start + 20_000, 'answered in time');
  // Refused once the slower pace was seen (a few waves of 400 ms after 1.2 s), long before the deadline.
  for (const o of refused) assert.ok(o.at - start < 6000, `refused after ${o.at - start} ms`);
});

test("a queue's first wave alone is not its pace; a request sent on a slot that came back while it waited is", () => {
  const pace = new QueuePace();
  pace.queued({ expectedMs: 0, quickestMs: undefined });
  for (let i = 0; i < 5; i += 1) pace.answered(0, 600, true);
  assert.equal(pace.waveMs(750), undefined, 'five first answers of 600 ms: nothing known, nothing refused on them');
  pace.answered(600, 620, true);
  assert.equal(pace.waveMs(750), 20, 'a request sent at the first turn held its slot 20 ms');
  pace.emptied();
  pace.queued({ expectedMs: 750, quickestMs: 600 });
  assert.equal(pace.waveMs(750), 20, "the next queue is judged on the last one's pace until it has its own");
});

test('a queue that follows answers already seen is judged on them until its own pace is known', () => {
  const pace = new QueuePace();
  pace.queued({ expectedMs: 2500, quickestMs: 2000 });
  pace.answered(0, 3000, true);
  assert.equal(pace.waveMs(9999), 2500, 'the duration seen before the queue began');
  assert.equal(pace.quickestWaveMs(9999), 2000, 'the quickest of the requests seen before it');
});

test('a slot kept through the wait after IN_FLIGHT_EXCEEDED hands a turn on but is no pace: its time is the retry wait', () => {
  const pace = new QueuePace();
  pace.queued({ expectedMs: 0, quickestMs: undefined });
  pace.answered(0, 90, true);
  // Three requests of the queue's own, refused and kept through a 1 s wait.
  for (let i = 0; i < 3; i += 1) pace.answered(90, 1180, false);
  assert.equal(pace.waveMs(0), undefined, 'no pace from retry waits');
  assert.equal(pace.quickestWaveMs(undefined), undefined, 'none to refuse on either');
  for (let i = 0; i < 3; i += 1) pace.answered(1180, 1270, true);
  assert.equal(pace.waveMs(0), 90, 'the answers that followed are the pace');
  assert.equal(pace.quickestWaveMs(undefined), 90);
});
