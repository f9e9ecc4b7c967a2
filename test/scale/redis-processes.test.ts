/**
 * Many processes, one account, one Redis: the gate shared through Redis keeps the
 * account's limits exactly, against the simulator with upstream latency. A scale test
 * (real windows: the processes cannot share a fake clock), run once per CI (see
 * ../helpers/scale.ts); how much of each window is used is a figure of
 * `node bench/limits.mjs --redis`, not an assertion.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { startDriver, stopDrivers } from '../helpers/redis-processes.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';
import { scaleTest } from '../helpers/scale.js';

const WINDOW_MS = 6000;
const PER_WINDOW = 60;
const PATH = '/v1/derived/dealer-gex/SPY/history';

describe('four processes share one account through Redis', scaleTest, () => {
  let redis: ThrowawayRedis | undefined;
  let sim: RunningSimulator | undefined;
  before(async () => {
    try {
      redis = await ThrowawayRedis.start();
    } catch {
      redis = undefined;
    }
  });
  after(async () => {
    await sim?.close();
    stopDrivers();
    await redis?.kill();
  });

  redisTest('360 calls from 4 processes: at most 1 % 429s, never over 5 in flight', { timeout: 120_000 }, async () => {
    assert.ok(redis);
    sim = await startSimulator({ limits: { perWindow: PER_WINDOW, windowMs: WINDOW_MS, inFlight: 5 } });
    sim.api.faults.latencyMs = 50;
    const settings = {
      mode: 'load' as const,
      redisUrl: redis.url,
      simUrl: sim.url,
      apiKey: 'sim-live-key',
      path: PATH,
      requests: 90,
      concurrency: 8,
      deadlineMs: 50_000,
    };
    const drivers = Array.from({ length: 4 }, () => startDriver(settings));
    const records = (await Promise.all(drivers.map((d) => d.done()))).flat();

    assert.equal(records.length, 360);
    // Should this fail, the message carries what is needed to tell a stall from a storm:
    // each failed call's timing and mode, and the upstream's answers window by window.
    const upstreamSoFar = sim.api.requests.filter((r) => r.path === PATH);
    const byWindow = new Map<number, string>();
    for (const r of upstreamSoFar) {
      const start = Math.floor(r.at / WINDOW_MS) * WINDOW_MS;
      byWindow.set(start, `${byWindow.get(start) ?? ''}${r.status === 200 ? '.' : r.status === 429 ? 'x' : '?'}`);
    }
    const failed = records.filter((r) => !r.ok);
    assert.deepEqual(
      failed.map((r) => r.code),
      [],
      `every call answered with data; failed: ${JSON.stringify(failed.map((r) => ({ code: r.code, waitedMs: r.endedAt - r.startedAt, mode: r.mode, refusals: r.refusals })))}; upstream per ${WINDOW_MS} ms window: ${[...byWindow.values()].map((v) => `${v.length}(${v.replace(/\.+/g, (m) => String(m.length))})`).join(' ')}`,
    );
    assert.ok(records.length === 360 && records.every((r) => r.mode === 'redis'), 'every process stayed on Redis');
    const upstream = sim.api.requests.filter((r) => r.path === PATH);
    const refused = upstream.filter((r) => r.status === 429);
    assert.ok(refused.length <= upstream.length * 0.01, `${refused.length} of ${upstream.length} requests were refused with 429`);
    assert.equal(upstream.filter((r) => r.code === 'IN_FLIGHT_EXCEEDED').length, 0, 'the in-flight cap held across processes');
    assert.ok(sim.api.inFlight('acct_live').max <= 5, `at most 5 in flight at once, saw ${sim.api.inFlight('acct_live').max}`);

    await sim.close();
    sim = undefined;
  });
});
