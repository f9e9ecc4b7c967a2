import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../helpers/fake-clock.js';
import { get, withSimulator } from '../helpers/http.js';

test('an on-demand dataset answers 202 uncharged until materialized, then 200', async () => {
  const clock = new FakeClock(Date.now());
  await withSimulator({ materializationMs: 600, now: () => clock.now() }, async (sim) => {
    const first = await get(sim, '/v1/institutions/ownership-by-ticker/NVDA');
    assert.equal(first.status, 202);
    assert.ok(Number(first.headers.get('retry-after')) >= 1);
    const quotaAtStart = Number(first.headers.get('x-quota-remaining'));
    const again = await get(sim, '/v1/institutions/ownership-by-ticker/NVDA');
    assert.equal(again.status, 202);
    assert.equal(Number(again.headers.get('x-quota-remaining')), quotaAtStart, 'polls are not charged');
    await clock.advance(599);
    assert.equal((await get(sim, '/v1/institutions/ownership-by-ticker/NVDA')).status, 202, 'not ready a moment early');
    await clock.advance(1);
    const ready = await get(sim, '/v1/institutions/ownership-by-ticker/NVDA');
    assert.equal(ready.status, 200);
    assert.equal(Number(ready.headers.get('x-quota-remaining')), quotaAtStart - 1);
    assert.equal((await get(sim, '/v1/institutions/ownership-by-ticker/AAPL')).status, 202, 'readiness is per ticker');
  });
});

test('a dataset that is not on demand answers 200 at once', async () => {
  await withSimulator({ materializationMs: 60_000 }, async (sim) => {
    assert.equal((await get(sim, '/v1/shorts/short-screener')).status, 200);
  });
});
