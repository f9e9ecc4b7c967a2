import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { rejection, withClient } from '../helpers/client.js';
import { fakeTime } from '../helpers/fake-time.js';
import { TICKERS } from '../helpers/fixtures.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { testCall } from '../helpers/call.js';

/** The tickers of the data requests the simulator answered with 200, sorted. */
const answeredTickers = (sim: RunningSimulator): string[] =>
  sim.api.requests
    .filter((r) => r.status === 200)
    .map((r) => r.path.split('/')[4] ?? '')
    .sort();

/** How many requests the simulator counted in each of its windows, in order. */
const perWindow = (sim: RunningSimulator, windowMs: number): number[] => {
  const counts = new Map<number, number>();
  for (const r of sim.api.requests) counts.set(Math.floor(r.at / windowMs), (counts.get(Math.floor(r.at / windowMs)) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
};

test('20 concurrent calls: the simulator never sees more than 5 in flight and answers no IN_FLIGHT_EXCEEDED', async () => {
  await withSimulator({}, async (sim) => {
    // Real upstream latency, so that the calls overlap: it holds slots, nothing waits on it.
    sim.api.faults.latencyMs = 150;
    await withClient(sim, async ({ call }) => {
      await Promise.all(TICKERS.map((t) => call('derived.dealer_gex_history', t, { limit: 1 })));
      assert.deepEqual(answeredTickers(sim), [...TICKERS].sort(), 'each ticker answered once');
      assert.equal(sim.api.inFlight('acct_live').max, 5, 'at most 5 in flight, and it does use the 5 slots');
      assert.deepEqual(
        sim.api.requests.filter((r) => r.code === 'IN_FLIGHT_EXCEEDED'),
        [],
      );
    });
  });
});

test('a burst larger than the window budget completes with no 429, paced by the headers', async () => {
  const time = fakeTime(1500);
  await withSimulator({ limits: { perWindow: 5, windowMs: 1500 }, now: time.now }, async (sim) => {
    await withClient(
      sim,
      async ({ call }) => {
        const tickers = TICKERS.slice(0, 12);
        await time.run(Promise.all(tickers.map((t) => call('derived.dealer_gex_history', t, { limit: 1 }))));
        assert.deepEqual(
          sim.api.requests.filter((r) => r.status !== 200),
          [],
          'no request was refused',
        );
        assert.deepEqual(answeredTickers(sim), [...tickers].sort());
        assert.deepEqual(perWindow(sim, 1500), [5, 5, 2], 'each window used whole, none over');
      },
      {},
      undefined,
      time.deps,
    );
  });
});

for (const skewSeconds of [30, -30]) {
  test(`a server clock ${skewSeconds > 0 ? 'ahead' : 'behind'} by ${Math.abs(skewSeconds)} s: the burst is still paced by the server's window, with no 429 and no extra wait`, async () => {
    const time = fakeTime(1500);
    const serverNow = (): number => time.now() + skewSeconds * 1000;
    await withSimulator({ limits: { perWindow: 5, windowMs: 1500 }, now: serverNow }, async (sim) => {
      await withClient(
        sim,
        async ({ call }) => {
          const started = time.now();
          await time.run(Promise.all(TICKERS.slice(0, 12).map((t) => call('derived.dealer_gex_history', t, { limit: 1 }))));
          assert.deepEqual(
            sim.api.requests.filter((r) => r.status !== 200).map((r) => r.code),
            [],
            'no request was refused',
          );
          // Three windows are needed (5 + 5 + 2): two resets, plus at most the second the
          // Date header's precision costs (the skew is estimated late, never early); not 30 s.
          assert.ok(time.now() - started < 2 * 1500 + 1000 + 500, `took ${time.now() - started} ms of the simulator's time`);
        },
        {},
        undefined,
        time.deps,
      );
    });
  });
}

for (const code of ['RATE_LIMITED', 'CIRCUIT_OPEN'] as const) {
  test(`a 429 ${code} pauses every queued call for Retry-After`, async () => {
    const time = fakeTime();
    await withSimulator({ now: time.now }, async (sim) => {
      await withClient(
        sim,
        async ({ call }) => {
          if (code === 'RATE_LIMITED') sim.api.faults.inject({ kind: 'error', code, retryAfterSeconds: 2 });
          else sim.api.faults.openCircuit(2, time.now());
          const first = call('derived.dealer_gex_history', 'SPY', { limit: 1 });
          // The first answer (the 429) is in and the account paused before the rest queue.
          await time.until(() => sim.api.requests.length >= 1 && time.idle());
          const rest = TICKERS.slice(1, 6).map((t) => call('derived.dealer_gex_history', t, { limit: 1 }));
          await time.run(Promise.all([first, ...rest]));
          const limited = sim.api.requests.filter((r) => r.code === code);
          assert.equal(limited.length, 1, 'one refusal: the rest waited instead of being refused');
          const pausedFrom = limited[0]?.doneAt ?? Infinity;
          assert.deepEqual(
            sim.api.requests.filter((r) => r.status === 200 && r.at < pausedFrom + 2000).map((r) => r.path),
            [],
            'nothing was sent during the pause',
          );
          assert.deepEqual(answeredTickers(sim), TICKERS.slice(0, 6).sort(), 'every call completed after the pause');
        },
        {},
        undefined,
        time.deps,
      );
    });
  });
}

test('QUOTA_EXHAUSTED latches: the next call fails without reaching the simulator, and calls resume after the reset', async () => {
  const time = fakeTime(3_600_000);
  await withSimulator({ limits: { monthlyQuota: 1, quotaPeriodMs: 3_600_000 }, now: time.now }, async (sim) => {
    await withClient(
      sim,
      async ({ client, call }) => {
        await time.run(call('market.oi_change', undefined, { limit: 5 }));
        const sent = sim.api.requests.length;
        const error = await time.run(rejection(call('market.oi_change', undefined, { limit: 6 })));
        assert.equal(error.code, 'QUOTA_EXHAUSTED');
        assert.equal(error.retryAfterSeconds, 3600, 'the wait is until the reset the headers said');
        assert.match(error.hint ?? '', /No request was sent/);
        assert.equal(sim.api.requests.length, sent, 'no request reached the simulator');
        assert.equal((await client.budget()).quota_exhausted, true);
        await time.clock.advance(3_600_000 - 1000);
        assert.equal((await time.run(rejection(call('market.oi_change', undefined, { limit: 7 })))).code, 'QUOTA_EXHAUSTED', 'not before');
        await time.clock.advance(1000);
        const after = await time.run(call('market.oi_change', undefined, { limit: 8 }));
        assert.ok(Array.isArray(after.data));
      },
      {},
      undefined,
      time.deps,
    );
  });
});

test('a QUOTA_EXHAUSTED answer (quota spent by another process) latches too', async () => {
  await withSimulator({}, async (sim) => {
    sim.api.setQuotaUsed('acct_live', 100_000);
    await withClient(sim, async ({ call }) => {
      assert.equal((await rejection(call('market.oi_change'))).code, 'QUOTA_EXHAUSTED');
      assert.equal((await rejection(call('shorts.short_screener'))).code, 'QUOTA_EXHAUSTED');
      assert.equal(sim.api.requests.length, 1, 'sent once, then latched');
    });
  });
});

test('a wait longer than the deadline fails at once with retry_after_seconds', async () => {
  const time = fakeTime();
  await withSimulator({ now: time.now }, async (sim) => {
    await withClient(
      sim,
      async ({ call }) => {
        sim.api.faults.inject({ kind: 'error', code: 'RATE_LIMITED', retryAfterSeconds: 30 });
        const started = time.now();
        const error = await time.run(rejection(call('market.oi_change')));
        assert.equal(error.code, 'RATE_LIMITED');
        assert.equal(error.recoverable, true);
        assert.equal(error.retryAfterSeconds, 30);
        assert.equal(time.now(), started, 'answered at once, without waiting');
      },
      { deadlineMs: 3000 },
      undefined,
      time.deps,
    );
  });
});

test('an aborted call frees its slot, and a queued call that is aborted leaves the queue unsent', async () => {
  await withSimulator({}, async (sim) => {
    // Real upstream latency: it holds the five slots while the test aborts; nothing waits it out but the calls.
    sim.api.faults.latencyMs = 1500;
    await withClient(sim, async ({ call }) => {
      const controllers = TICKERS.slice(0, 7).map(() => new AbortController());
      const calls = TICKERS.slice(0, 7).map((t, i) =>
        call('derived.dealer_gex_history', t, { limit: 1 }, { call: testCall({ signal: controllers[i]?.signal as AbortSignal }) }).then(
          () => 'ok',
          (e: { code?: string }) => e.code,
        ),
      );
      // Five in flight upstream, two queued.
      for (let i = 0; i < 2000 && sim.api.inFlight('acct_live').now < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
      controllers[6]?.abort(); // queued
      controllers[0]?.abort(); // in flight
      const outcomes = await Promise.all(calls);
      assert.equal(outcomes[0], 'CANCELLED');
      assert.equal(outcomes[6], 'CANCELLED');
      assert.deepEqual(outcomes.slice(1, 6), ['ok', 'ok', 'ok', 'ok', 'ok']);
      const arrivals = sim.api.requests.map((r) => r.path);
      assert.ok(
        arrivals.some((p) => p.includes('/NVDA/')),
        'the 6th call was sent',
      );
      assert.ok(!arrivals.some((p) => p.includes('/AMD/')), 'the aborted queued call never reached the simulator');
      // It got the slot of the aborted in-flight call, not one freed by the 1.5 s latency.
      const sixthArrival = sim.api.requests.find((r) => r.path.includes('/NVDA/'))?.at ?? Infinity;
      const firstAnswered = Math.min(...sim.api.requests.filter((r) => r.status === 200).map((r) => r.doneAt));
      assert.ok(sixthArrival < firstAnswered, 'the 6th was sent before any call in flight had answered');
    });
  });
});
