import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProgressEvent } from '../../src/api/client.js';
import { withSimulator } from '../helpers/http.js';
import { rejection, withClient } from '../helpers/client.js';

test('202 then 200 returns the data, and the polls are not charged', async () => {
  await withSimulator({ materializationMs: 1200 }, async (sim) => {
    await withClient(sim, async ({ call }) => {
      const progress: ProgressEvent[] = [];
      const result = await call('institutions.ownership_by_ticker', 'NVDA', {}, { onProgress: (e) => progress.push(e) });
      assert.ok(Array.isArray(result.data) && result.data.length > 0);
      const statuses = sim.api.requests.map((r) => r.status);
      assert.ok(statuses.filter((s) => s === 202).length >= 1, `polled: ${statuses.join(',')}`);
      assert.equal(statuses.at(-1), 200);
      assert.equal(sim.api.requests.filter((r) => r.charged).length, 1, 'one unit for the whole call');
      assert.equal(result.meta.quota_remaining, 99_999);
      assert.ok(
        progress.some((e) => /building/.test(e.message)),
        'progress said why it waits',
      );
    });
  });
});

test('a 202 that outlasts the deadline ends as a recoverable NOT_READY', async () => {
  await withSimulator({ materializationMs: 60_000 }, async (sim) => {
    await withClient(
      sim,
      async ({ call }) => {
        const error = await rejection(call('stocks.dividends', 'KO'));
        assert.equal(error.code, 'NOT_READY');
        assert.equal(error.recoverable, true);
        assert.ok((error.retryAfterSeconds ?? 0) >= 1);
      },
      { deadlineMs: 2500 },
    );
  });
});

test('READ_MODEL_UNAVAILABLE is retried after its retry_after_seconds', async () => {
  await withSimulator({}, async (sim) => {
    await withClient(sim, async ({ call }) => {
      sim.api.faults.inject({ kind: 'error', code: 'READ_MODEL_UNAVAILABLE', retryAfterSeconds: 1 });
      await call('market.oi_change');
      const [unavailable, ok] = sim.api.requests;
      assert.equal(unavailable?.code, 'READ_MODEL_UNAVAILABLE');
      assert.equal(ok?.status, 200);
      assert.ok((ok?.at ?? 0) - (unavailable?.doneAt ?? 0) >= 950, 'waited the second it was told');
    });
  });
});

const PERMANENT: [string, string, string | undefined, Record<string, string>, string?][] = [
  ['NOT_FOUND', 'stocks.dividends', 'ZZZZ', {}],
  ['INDEX_UNSUPPORTED', 'shorts.volume_and_ratio', 'SPX', {}],
  ['TICKER_INVALID', 'derived.dealer_gex_history', 'BRK.B', {}],
  ['AUTH_INVALID', 'market.oi_change', undefined, {}, 'sim-revoked-key'],
  ['AUTH_PAUSED', 'market.oi_change', undefined, {}, 'sim-lapsed-key'],
  ['SCOPE_INSUFFICIENT', 'flow.ticker_overview', 'SPY', {}],
  ['RANGE_TOO_DEEP', 'shorts.volume_and_ratio', 'GME', { from: '2001-01-02' }],
];

for (const [code, operationId, ticker, query, key] of PERMANENT) {
  test(`${code} is sent once and never retried`, async () => {
    await withSimulator({}, async (sim) => {
      await withClient(
        sim,
        async ({ call }) => {
          const error = await rejection(call(operationId, ticker, query));
          assert.equal(error.code, code);
          assert.equal(error.recoverable, false);
          assert.ok(error.requestId);
          assert.equal(sim.api.requests.length, 1);
        },
        {},
        key,
      );
    });
  });
}

test('AUTH_MISSING from upstream is not retried either', async () => {
  await withSimulator({}, async (sim) => {
    await withClient(sim, async ({ call }) => {
      sim.api.faults.inject({ kind: 'error', code: 'AUTH_MISSING' });
      assert.equal((await rejection(call('market.oi_change'))).code, 'AUTH_MISSING');
      assert.equal(sim.api.requests.length, 1);
    });
  });
});

test('SERVICE_DISABLED is not retried and is remembered: the next call fails without a request', async () => {
  await withSimulator({ disabledCapabilities: ['dealer_heatmap'] }, async (sim) => {
    await withClient(sim, async ({ client, call }) => {
      assert.equal((await rejection(call('derived.dealer_gex_history', 'SPY'))).code, 'SERVICE_DISABLED');
      const again = await rejection(call('derived.dealer_gex_history', 'QQQ'));
      assert.equal(again.code, 'SERVICE_DISABLED');
      assert.equal(again.local, true);
      assert.equal(sim.api.requests.length, 1);
      assert.deepEqual((await client.budget()).disabled, ['dealer_heatmap']);
      await call('market.oi_change');
    });
  });
});

test('a 5xx is retried with backoff up to twice, then reported', async () => {
  await withSimulator({}, async (sim) => {
    await withClient(sim, async ({ call }) => {
      sim.api.faults.inject({ kind: 'error', code: 'UPSTREAM_TIMEOUT' }, 2);
      await call('market.oi_change');
      assert.deepEqual(
        sim.api.requests.map((r) => r.status),
        [504, 504, 200],
      );
      sim.api.faults.inject({ kind: 'error', code: 'INTERNAL_ERROR' }, 3);
      const error = await rejection(call('shorts.short_screener'));
      assert.equal(error.code, 'INTERNAL_ERROR');
      assert.equal(sim.api.requests.length, 6);
    });
  });
});
