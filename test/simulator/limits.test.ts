import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../helpers/fake-clock.js';
import { envelopeOf, get, LIMIT_HEADERS, withSimulator } from '../helpers/http.js';

/** A clock for the simulator that starts at the beginning of one of its windows and moves only when told. */
const clockAtWindowStart = (windowMs: number): FakeClock => new FakeClock(Math.ceil(Date.now() / windowMs) * windowMs);

test('every kind of response carries the six limit headers', async () => {
  await withSimulator({ materializationMs: 10_000, limits: { perWindow: 5 } }, async (sim) => {
    const responses = [
      await get(sim, '/v1/derived/dealer-gex/SPY/history'), // 200
      await get(sim, '/v1/stocks/dividends/AAPL'), // 202
      await get(sim, '/v1/stocks/dividends/aapl'), // 400
      await get(sim, '/v1/stocks/dividends/AAPL', null), // 401
      await get(sim, '/v1/discover'), // meta
      await get(sim, '/v1/openapi.json'), // meta
    ];
    responses.push(await get(sim, '/v1/health')); // 429: the window of 6 is spent
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 202, 400, 401, 200, 200, 429],
    );
    for (const response of responses) {
      for (const header of LIMIT_HEADERS) assert.ok(response.headers.get(header), `${header} on a ${response.status}`);
      assert.ok(!Number.isNaN(Date.parse(response.headers.get('x-quota-reset-at') ?? '')));
    }
    assert.ok(responses[6]?.headers.get('retry-after'));
  });
});

test('only a 200 on a data endpoint costs a unit', async () => {
  await withSimulator({ materializationMs: 10_000 }, async (sim) => {
    const quota = async (path: string, key?: string | null): Promise<number> =>
      Number((await get(sim, path, key)).headers.get('x-quota-remaining'));
    const start = await quota('/v1/health');
    assert.equal(await quota('/v1/discover'), start, 'discover is free');
    assert.equal(await quota('/v1/openapi.json'), start, 'openapi is free');
    assert.equal(await quota('/v1/stocks/dividends/AAPL'), start, '202 is free');
    assert.equal(await quota('/v1/stocks/dividends/ZZZZ'), start, '404 is free');
    assert.equal(await quota('/v1/derived/dealer-gex/BRK.B/history'), start, '400 is free');
    assert.equal(await quota('/v1/flow/tickers/SPY/overview'), start, '403 is free');
    sim.api.faults.inject({ kind: 'error', code: 'UPSTREAM_ERROR' });
    assert.equal(await quota('/v1/market/oi-change'), start, '5xx is free');
    assert.equal(await quota('/v1/market/oi-change'), start - 1, 'a 200 costs one unit');
    const discover = (await get(sim, '/v1/discover')).body as { quota: { monthly_remaining: number } };
    assert.equal(discover.quota.monthly_remaining, start - 1);
  });
});

test('the per-minute window is fixed: the 4th request of a 3-request window is RATE_LIMITED until the reset', async () => {
  const clock = clockAtWindowStart(60_000);
  await withSimulator({ limits: { perWindow: 3, windowMs: 60_000 }, now: () => clock.now() }, async (sim) => {
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push(await get(sim, '/v1/market/oi-change'));
    assert.deepEqual(
      statuses.map((r) => r.status),
      [200, 200, 200, 429],
    );
    const limited = statuses[3];
    assert.ok(limited);
    assert.equal(envelopeOf(limited).error.code, 'RATE_LIMITED');
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
    const resetAt = Number(limited.headers.get('x-ratelimit-reset')) * 1000;
    await clock.advance(resetAt - clock.now() - 1);
    assert.equal((await get(sim, '/v1/market/oi-change')).status, 429, 'still refused just before the reset');
    await clock.advance(1);
    assert.equal((await get(sim, '/v1/market/oi-change')).status, 200);
  });
});

test('limits are per account: two keys of one account share the window', async () => {
  await withSimulator({ limits: { perWindow: 2, windowMs: 60_000 } }, async (sim) => {
    assert.equal((await get(sim, '/v1/market/oi-change', 'sim-live-key')).status, 200);
    assert.equal((await get(sim, '/v1/market/oi-change', 'sim-narrow-key')).status, 200);
    assert.equal((await get(sim, '/v1/market/oi-change', 'sim-narrow-key')).status, 429);
    assert.equal((await get(sim, '/v1/market/oi-change', 'sim-admin-key')).status, 200, 'another account is not affected');
  });
});

test('the per-IP window refuses above its own budget', async () => {
  await withSimulator({ limits: { perIpPerWindow: 2, windowMs: 60_000 } }, async (sim) => {
    await get(sim, '/v1/health', 'sim-live-key');
    await get(sim, '/v1/health', 'sim-admin-key');
    const third = await get(sim, '/v1/health', 'sim-admin-key');
    assert.equal(envelopeOf(third).error.code, 'RATE_LIMITED');
  });
});

test('more than the in-flight cap at once answers IN_FLIGHT_EXCEEDED to the excess only', async () => {
  await withSimulator({}, async (sim) => {
    sim.api.faults.latencyMs = 300;
    const responses = await Promise.all(Array.from({ length: 7 }, () => get(sim, '/v1/market/oi-change')));
    const codes = responses.map((r) => (r.status === 200 ? 'OK' : envelopeOf(r).error.code)).sort();
    assert.deepEqual(codes, ['IN_FLIGHT_EXCEEDED', 'IN_FLIGHT_EXCEEDED', 'OK', 'OK', 'OK', 'OK', 'OK']);
    assert.ok(sim.api.inFlight('acct_live').max > 5, 'the simulator saw the excess');
  });
});

test('QUOTA_EXHAUSTED carries the reset instant and lifts once the period rolls over', async () => {
  const clock = clockAtWindowStart(3_600_000);
  await withSimulator({ limits: { monthlyQuota: 2, quotaPeriodMs: 3_600_000 }, now: () => clock.now() }, async (sim) => {
    assert.equal((await get(sim, '/v1/market/oi-change')).status, 200);
    assert.equal((await get(sim, '/v1/market/oi-change')).status, 200);
    const exhausted = await get(sim, '/v1/market/oi-change');
    assert.equal(envelopeOf(exhausted).error.code, 'QUOTA_EXHAUSTED');
    assert.equal(exhausted.headers.get('x-quota-remaining'), '0');
    const resetAt = Date.parse(exhausted.headers.get('x-quota-reset-at') ?? '');
    assert.equal(resetAt, clock.now() + 3_600_000, 'the reset instant is the end of the period');
    assert.equal((await get(sim, '/v1/health')).status, 200, 'meta endpoints stay free and open');
    await clock.advance(resetAt - clock.now() - 1);
    assert.equal(envelopeOf(await get(sim, '/v1/market/oi-change')).error.code, 'QUOTA_EXHAUSTED', 'not before the reset');
    await clock.advance(1);
    assert.equal((await get(sim, '/v1/market/oi-change')).status, 200);
  });
});

test('the monthly quota resets at the start of the next UTC month by default', async () => {
  await withSimulator({}, async (sim) => {
    const resetAt = new Date((await get(sim, '/v1/health')).headers.get('x-quota-reset-at') ?? '');
    assert.equal(resetAt.getUTCDate(), 1);
    assert.equal(resetAt.getUTCHours(), 0);
    assert.ok(resetAt.getTime() > Date.now());
  });
});
