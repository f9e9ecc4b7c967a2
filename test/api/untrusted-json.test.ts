/**
 * JSON this server did not write itself is read through a schema: what another process
 * left in the shared cache, discover's body, a 202's body. Something of the wrong shape
 * is not used as if it were right.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiResult } from '../../src/api/client.js';
import type { SharedCacheTier } from '../../src/redis/cache.js';
import { classify } from '../../src/api/upstream-answer.js';
import { discoveredOutOfScope } from '../../src/catalog/index.js';
import { withSimulator } from '../helpers/http.js';
import { makeClient } from '../helpers/client.js';

/** A shared tier that answers every read with what a peer supposedly stored. */
function peerTier(stored: unknown): SharedCacheTier<ApiResult> {
  return {
    readThrough: () => Promise.resolve({ value: stored as ApiResult, storedAt: Date.now() - 3000, fromPeer: true }),
  };
}

test('a shared-cache entry that is not a result is not served: the call is sent instead', async () => {
  await withSimulator({}, async (sim) => {
    const { call } = makeClient(sim, {}, 'sim-live-key', { sharedCache: peerTier({ rows: 'left by something else' }) });
    const result = await call('market.oi_change');
    assert.equal(result.meta.cache_hit, false);
    assert.equal(sim.api.requests.length, 1, 'sent upstream');
    assert.ok(Array.isArray(result.data) && result.data.length > 0, 'the upstream data');
  });
});

test("a shared-cache entry with a result's shape is served as a cache hit, without a request", async () => {
  await withSimulator({}, async (sim) => {
    const stored = {
      data: [{ ticker: 'PEER' }],
      meta: { operation_id: 'market.oi_change', cache_hit: false, age_seconds: 0, truncated: false },
    };
    const { call } = makeClient(sim, {}, 'sim-live-key', { sharedCache: peerTier(stored) });
    const result = await call('market.oi_change');
    assert.deepEqual(result.data, stored.data);
    assert.equal(result.meta.cache_hit, true);
    assert.equal(result.meta.age_seconds, 3);
    assert.equal(sim.api.requests.length, 0);
  });
});

test('discover: a dataset it says the key cannot call is out of scope unless the key holds its scope; odd entries are skipped', () => {
  const body = {
    access_scope: ['flow'],
    datasets: [
      { operation_id: 'flow.a', accessible: false, scope: 'flow' },
      { operation_id: 'shorts.b', accessible: false, scope: 'shorts' },
      { operation_id: 'macro.c', accessible: false, scope: 7 },
      { operation_id: 'stocks.d', accessible: 'no', scope: 'stocks' },
      { operation_id: 'stocks.e', accessible: true, scope: 'stocks' },
    ],
  };
  assert.equal(discoveredOutOfScope(body, 'flow.a'), undefined, 'held scope');
  assert.deepEqual(discoveredOutOfScope(body, 'shorts.b'), { scope: 'shorts' });
  assert.deepEqual(discoveredOutOfScope(body, 'macro.c'), { scope: undefined }, 'a scope that is not text is unknown');
  assert.equal(discoveredOutOfScope(body, 'stocks.d'), undefined, 'accessible must be a boolean');
  assert.equal(discoveredOutOfScope(body, 'stocks.e'), undefined);
  assert.equal(discoveredOutOfScope({ datasets: 'none' }, 'shorts.b'), undefined, 'not discover');
  assert.deepEqual(
    discoveredOutOfScope({ access_scope: 'flow', datasets: body.datasets }, 'flow.a'),
    { scope: 'flow' },
    'scopes not a list: none held',
  );
});

test("a 202's body gives the wait when it has one; otherwise Retry-After does", () => {
  const response = (body: unknown) => ({ status: 202, body, bodyInvalid: false, limits: {}, retryAfterSeconds: 9, requestId: undefined });
  assert.equal(classify(response({ retry_after_seconds: 4 }))?.retryAfterSeconds, 4);
  assert.equal(classify(response({ retry_after_seconds: 'soon' }))?.retryAfterSeconds, 9);
  assert.equal(classify(response(['retry_after_seconds', 4]))?.retryAfterSeconds, 9);
  assert.equal(classify(response(undefined))?.retryAfterSeconds, 9);
});
