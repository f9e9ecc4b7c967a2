import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sleep, withSimulator } from '../helpers/http.js';
import { rejection, withClient } from '../helpers/client.js';
import { TICKERS } from '../helpers/fixtures.js';

test('20 concurrent calls: the simulator never sees more than 5 in flight and answers no IN_FLIGHT_EXCEEDED', async () => {
  await withSimulator({}, async (sim) => {
    sim.api.faults.latencyMs = 150;
    await withClient(sim, async ({ call }) => {
      const results = await Promise.all(TICKERS.map((t) => call('derived.dealer_gex_history', t, { limit: 1 })));
      assert.equal(results.length, 20);
      assert.ok(sim.api.inFlight('acct_live').max <= 5, `max in flight ${sim.api.inFlight('acct_live').max}`);
      assert.equal(sim.api.inFlight('acct_live').max, 5, 'and it does use the 5 slots');
      assert.ok(!sim.api.requests.some((r) => r.code === 'IN_FLIGHT_EXCEEDED'));
    });
  });
});

test('a burst larger than the window budget completes with no 429, paced by the headers', async () => {
  await withSimulator({ limits: { perWindow: 5, windowMs: 1500 } }, async (sim) => {
    await withClient(sim, async ({ call }) => {
      const started = Date.now();
      const results = await Promise.all(TICKERS.slice(0, 12).map((t) => call('derived.dealer_gex_history', t, { limit: 1 })));
      assert.equal(results.length, 12);
      assert.deepEqual(
        sim.api.requests.filter((r) => r.status !== 200),
        [],
        'no request was refused',
      );
      assert.ok(Date.now() - started >= 1500, 'the burst waited for at least one window reset');
    });
  });
});

for (const skewSeconds of [30, -30]) {
  test(`a server clock ${skewSeconds > 0 ? 'ahead' : 'behind'} by ${Math.abs(skewSeconds)} s: the burst is still paced by the server's window, with no 429 and no extra wait`, async () => {
    await withSimulator({ limits: { perWindow: 5, windowMs: 1500 }, now: () => Date.now() + skewSeconds * 1000 }, async (sim) => {
      await withClient(sim, async ({ call }) => {
        const started = Date.now();
        await Promise.all(TICKERS.slice(0, 12).map((t) => call('derived.dealer_gex_history', t, { limit: 1 })));
        assert.deepEqual(
          sim.api.requests.filter((r) => r.status !== 200).map((r) => r.code),
          [],
          'no request was refused',
        );
        assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
      });
    });
  });
}

for (const code of ['RATE_LIMITED', 'CIRCUIT_OPEN'] as const) {
  test(`a 429 ${code} pauses every queued call for Retry-After`, async () => {
    await withSimulator({}, async (sim) => {
      await withClient(sim, async ({ call }) => {
        if (code === 'RATE_LIMITED') sim.api.faults.inject({ kind: 'error', code, retryAfterSeconds: 2 });
        else sim.api.faults.openCircuit(2);
        const first = call('derived.dealer_gex_history', 'SPY', { limit: 1 });
        await sleep(100);
        const rest = TICKERS.slice(1, 6).map((t) => call('derived.dealer_gex_history', t, { limit: 1 }));
        await Promise.all([first, ...rest]);
        const limited = sim.api.requests.filter((r) => r.code === code);
        assert.ok(limited.length >= 1);
        const pausedFrom = Math.min(...limited.map((r) => r.doneAt));
        const lastLimited = Math.max(...limited.map((r) => r.doneAt));
        const during = sim.api.requests.filter((r) => r.at > lastLimited + 20 && r.at < pausedFrom + 1900);
        assert.deepEqual(during, [], 'nothing was sent during the pause');
        assert.equal(sim.api.requests.filter((r) => r.status === 200).length, 6, 'every call completed after the pause');
      });
    });
  });
}

test('QUOTA_EXHAUSTED latches: the next call fails without reaching the simulator, and calls resume after the reset', async () => {
  await withSimulator({ limits: { monthlyQuota: 1, quotaPeriodMs: 2500 } }, async (sim) => {
    await sleep(2500 - (Date.now() % 2500) + 30);
    await withClient(sim, async ({ client, call }) => {
      await call('market.oi_change', undefined, { limit: 5 });
      const sent = sim.api.requests.length;
      const error = await rejection(call('market.oi_change', undefined, { limit: 6 }));
      assert.equal(error.code, 'QUOTA_EXHAUSTED');
      assert.ok((error.retryAfterSeconds ?? 0) >= 1);
      assert.match(error.hint ?? '', /No request was sent/);
      assert.equal(sim.api.requests.length, sent, 'no request reached the simulator');
      assert.equal((await client.budget()).quota_exhausted, true);
      await sleep((error.retryAfterSeconds ?? 3) * 1000 + 100);
      const after = await call('market.oi_change', undefined, { limit: 7 });
      assert.ok(Array.isArray(after.data));
    });
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
  await withSimulator({}, async (sim) => {
    await withClient(
      sim,
      async ({ call }) => {
        sim.api.faults.inject({ kind: 'error', code: 'RATE_LIMITED', retryAfterSeconds: 30 });
        const started = Date.now();
        const error = await rejection(call('market.oi_change'));
        assert.equal(error.code, 'RATE_LIMITED');
        assert.equal(error.recoverable, true);
        assert.equal(error.retryAfterSeconds, 30);
        assert.ok(Date.now() - started < 1000, 'answered at once');
      },
      { deadlineMs: 3000 },
    );
  });
});

test('an aborted call frees its slot, and a queued call that is aborted leaves the queue unsent', async () => {
  await withSimulator({}, async (sim) => {
    sim.api.faults.latencyMs = 1500;
    await withClient(sim, async ({ call }) => {
      const controllers = TICKERS.slice(0, 7).map(() => new AbortController());
      const started = Date.now();
      const calls = TICKERS.slice(0, 7).map((t, i) =>
        call('derived.dealer_gex_history', t, { limit: 1 }, { signal: controllers[i]?.signal as AbortSignal }).then(
          () => 'ok',
          (e: { code?: string }) => e.code,
        ),
      );
      await sleep(200);
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
      assert.ok(sixthArrival - started < 1000, `6th sent after ${sixthArrival - started} ms`);
    });
  });
});
