import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { rejection, withClient } from '../helpers/client.js';

test('malformed JSON in a 200 ends in RESPONSE_INVALID, not retried (it was charged)', async () => {
  await withSimulator({}, async (sim) => {
    await withClient(sim, async ({ call }) => {
      sim.api.faults.inject({ kind: 'malformed' });
      const error = await rejection(call('market.oi_change'));
      assert.equal(error.code, 'RESPONSE_INVALID');
      assert.equal(sim.api.requests.length, 1);
    });
  });
});

test('upstream strings reach the agent without control, zero-width or bidi characters, and capped', async () => {
  await withSimulator({}, async (sim) => {
    await withClient(sim, async ({ call }) => {
      const hostile = {
        data: [{ name: 'Ev\u202eil\u200b Corp\u0007', note: 'x'.repeat(5000), 'key\u2066': 1.5 }],
        _meta: { notice: 'ok\u200d', data_source: 'simulator' },
      };
      sim.api.faults.inject({ kind: 'raw', status: 200, body: JSON.stringify(hostile), contentType: 'application/json' });
      const result = await call('market.oi_change');
      const [row] = result.data as Record<string, unknown>[];
      assert.equal(row?.['name'], 'Evil Corp');
      assert.ok(String(row?.['note']).length <= 2000);
      assert.equal(row?.['key'], 1.5, 'numbers untouched, keys cleaned');
      // The upstream's own notice, cleaned, then this client's word on the value it cut.
      assert.match(result.meta.notice ?? '', /^ok 1 text value was longer than 2,000 characters/);
      assert.equal(result.meta.truncated, true);
    });
  });
});

test('an HTML 502 page maps to UPSTREAM_ERROR with a hint, after the backoff retries', async () => {
  await withSimulator({}, async (sim) => {
    await withClient(sim, async ({ call }) => {
      sim.api.faults.inject(
        { kind: 'raw', status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>', contentType: 'text/html' },
        3,
      );
      const error = await rejection(call('market.oi_change'));
      assert.equal(error.code, 'UPSTREAM_ERROR');
      assert.equal(error.status, 502);
      assert.match(error.hint ?? '', /proxy/);
      assert.doesNotMatch(error.message, /<html>/);
    });
  });
});

test('a reset connection is a NETWORK_ERROR, retried, then reported', async () => {
  await withSimulator({}, async (sim) => {
    await withClient(sim, async ({ call }) => {
      sim.api.faults.inject({ kind: 'reset' }, 1);
      await call('market.oi_change');
      sim.api.faults.inject({ kind: 'reset' }, 3);
      const error = await rejection(call('shorts.short_screener'));
      assert.equal(error.code, 'NETWORK_ERROR');
      assert.equal(error.recoverable, true);
      assert.doesNotMatch(JSON.stringify(error.toJSON()), /at .*\.js/, 'no stack');
    });
  });
});

test('a slow-drip body ends in DEADLINE_EXCEEDED within the deadline', async () => {
  await withSimulator({}, async (sim) => {
    await withClient(
      sim,
      async ({ call }) => {
        sim.api.faults.inject({ kind: 'slow-drip', chunkDelayMs: 300, chunks: 20 });
        const started = Date.now();
        const error = await rejection(call('market.oi_change'));
        assert.equal(error.code, 'DEADLINE_EXCEEDED');
        assert.ok(Date.now() - started < 2500, `took ${Date.now() - started} ms`);
      },
      { deadlineMs: 1500 },
    );
  });
});

test('an oversized body is cut off as RESPONSE_TOO_LARGE_LOCAL', async () => {
  await withSimulator({}, async (sim) => {
    await withClient(
      sim,
      async ({ call }) => {
        sim.api.faults.inject({ kind: 'oversize', bytes: 512 * 1024 });
        const error = await rejection(call('market.oi_change'));
        assert.equal(error.code, 'RESPONSE_TOO_LARGE_LOCAL');
        // The API answered 200 before the body was cut: the agent is told the unit was spent.
        assert.equal(error.charged, true);
        assert.match(error.message, /most likely charged/);
        await call('shorts.short_screener'); // the connection pool still works afterwards
      },
      { maxResponseBytes: 64 * 1024 },
    );
  });
});

test('two identical concurrent calls reach the simulator once; a repeat within its TTL reaches it zero times', async () => {
  await withSimulator({}, async (sim) => {
    sim.api.faults.latencyMs = 200;
    await withClient(sim, async ({ call }) => {
      const [a, b] = await Promise.all([
        call('shorts.short_screener', undefined, { limit: 5 }),
        call('shorts.short_screener', undefined, { limit: 5 }),
      ]);
      assert.deepEqual(a.data, b.data);
      assert.equal(sim.api.requests.length, 1);
      const again = await call('shorts.short_screener', undefined, { limit: 5 });
      assert.equal(sim.api.requests.length, 1);
      assert.equal(again.meta.cache_hit, true);
      assert.ok(again.meta.age_seconds >= 0);
      assert.equal(sim.api.requests.filter((r) => r.charged).length, 1, 'the cache hit cost no unit');
      await call('shorts.short_screener', undefined, { limit: 6 });
      assert.equal(sim.api.requests.length, 2, 'other parameters are another request');
    });
  });
});

test('one log line per upstream request, and the key appears in no log line', async () => {
  await withSimulator({}, async (sim) => {
    await withClient(
      sim,
      async ({ call, logs }) => {
        await call('market.oi_change');
        await rejection(call('stocks.dividends', 'ZZZZ'));
        sim.api.faults.inject({ kind: 'reset' }, 3);
        await rejection(call('shorts.short_screener'));
        const upstream = logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['msg'] === 'upstream request');
        // Two answers, then the first try and two retries of the reset call: every request is logged.
        assert.equal(upstream.length, 5);
        assert.deepEqual(
          Object.keys(upstream[0] ?? {}).filter((k) =>
            ['op', 'status', 'ms', 'request_id', 'cache_hit', 'rate_remaining', 'quota_remaining'].includes(k),
          ).length,
          7,
        );
        assert.equal(upstream[1]?.['code'], 'NOT_FOUND');
        assert.deepEqual(
          upstream.slice(2).map((l) => l['code']),
          ['NETWORK_ERROR', 'NETWORK_ERROR', 'NETWORK_ERROR'],
        );
        for (const line of logs) assert.ok(!line.includes('sim-live-key'), line);
      },
      {},
      'sim-live-key',
    );
  });
});

test('without a key or base URL, calls answer CONFIG_INVALID naming the variables, with no request', async () => {
  const { MarketDataClient } = await import('../../src/api/client.js');
  const { ConfigSchema } = await import('../../src/config/config.js');
  const { createLogger } = await import('../../src/log.js');
  const { dataset } = await import('../helpers/client.js');
  const client = new MarketDataClient({ config: ConfigSchema.parse({}), log: createLogger('silent') });
  const error = await rejection(client.dataset(dataset('market.oi_change'), undefined, {}));
  assert.equal(error.code, 'CONFIG_INVALID');
  assert.match(error.hint ?? '', /MARKET_DATA_API_KEY and MARKET_DATA_BASE_URL/);
  assert.match(error.hint ?? '', /--demo/);
  await client.close();
});
