/**
 * Redis goes away: every process goes on through its in-process gate at once, no call
 * waits past its deadline, and the process rejoins Redis when it answers again.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { createAccountGate } from '../../src/redis/factory.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { spawn } from 'node:child_process';
import { CLI, serverEnv } from '../helpers/mcp.js';
import { StandInGate } from '../helpers/redis-local-gate.js';
import { startDriver, stopDrivers } from '../helpers/redis-processes.js';
import { eventually } from '../helpers/wait.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';

const PATH = '/v1/derived/dealer-gex/SPY/history';

describe('when Redis goes away', () => {
  let redis: ThrowawayRedis | undefined;
  let sim: RunningSimulator | undefined;
  before(async () => {
    redis = await ThrowawayRedis.start().catch(() => undefined);
  });
  after(async () => {
    await sim?.close();
    stopDrivers();
    await redis?.kill();
  });

  redisTest('killed mid-run: calls go on through the fallback and none answers past its deadline', { timeout: 90_000 }, async () => {
    assert.ok(redis);
    sim = await startSimulator({ limits: { perWindow: 60, windowMs: 6000, inFlight: 5 } });
    sim.api.faults.latencyMs = 50;
    const drivers = Array.from({ length: 4 }, () =>
      startDriver({
        mode: 'load',
        redisUrl: redis?.url ?? '',
        simUrl: sim?.url ?? '',
        apiKey: 'sim-live-key',
        path: PATH,
        requests: 40,
        concurrency: 6,
        deadlineMs: 8000,
        probeMs: 500,
      }),
    );
    await Promise.all(drivers.map((d) => d.next((e) => e['ready'] === true)));
    // Redis is killed once the calls have gone through it a while: a second wave sent by every driver.
    const sentUpstream = (): number => sim?.api.requests.filter((r) => r.path === PATH).length ?? 0;
    await eventually(() => sentUpstream() > 2 * drivers.length * 6, 'calls through Redis before the kill', 20_000);
    const killedAt = Date.now();
    await redis.kill();
    const records = (await Promise.all(drivers.map((d) => d.done()))).flat();

    assert.equal(records.length, 160);
    const late = records.filter((r) => r.overrunMs > 250);
    assert.deepEqual(late, [], 'no call answered past its deadline');
    const before = records.filter((r) => r.endedAt < killedAt);
    const afterKill = records.filter((r) => r.startedAt > killedAt + 100);
    assert.ok(
      before.some((r) => r.ok && r.mode === 'redis'),
      'calls went through Redis before the kill',
    );
    assert.ok(afterKill.length > 0 && afterKill.every((r) => r.mode === 'in-process'), 'after the kill, every process used its own gate');
    assert.ok(
      afterKill.some((r) => r.ok),
      'calls went on with data through the fallback',
    );
    await sim.close();
    sim = undefined;
    await redis.restart();
  });

  redisTest('api_status shows the mode and why; the process rejoins Redis when it is back', { timeout: 30_000 }, async () => {
    assert.ok(redis);
    const fallback = new StandInGate(5);
    const gate = await createAccountGate({ redisUrl: redis.url, apiKey: 'key-rejoin-test-1', fallback, probeMs: 200 });
    try {
      const signal = new AbortController().signal;
      assert.equal((await gate.view()).mode, 'redis');
      (await gate.acquire({ free: false, deadline: Date.now() + 1000, signal })).release({ status: 200 });
      assert.equal(fallback.acquired, 0, 'Redis served the first permit');

      await redis.kill();
      const started = Date.now();
      const permit = await gate.acquire({ free: false, deadline: Date.now() + 1000, signal });
      assert.ok(Date.now() - started < 1000, 'the permit came from the fallback without waiting on Redis');
      assert.equal(fallback.acquired, 1);
      permit.release({ status: 200 });
      const down = await gate.view();
      assert.equal(down.mode, 'in-process');
      assert.match(down.mode_reason ?? '', /redis unreachable/);

      await redis.restart();
      let view = await gate.view();
      for (let i = 0; i < 100 && view.mode !== 'redis'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        view = await gate.view();
      }
      assert.equal(view.mode, 'redis', 'the probe brought the process back to Redis');
      (await gate.acquire({ free: false, deadline: Date.now() + 1000, signal })).release({ status: 200 });
      assert.equal(fallback.acquired, 1, 'after rejoining, permits come from Redis again');
    } finally {
      await gate.close();
    }
  });

  redisTest('a server process on a frozen Redis still ends when its host closes stdin', { timeout: 30_000 }, async () => {
    assert.ok(redis);
    sim = await startSimulator({});
    const child = spawn(process.execPath, [CLI], {
      env: serverEnv({ baseUrl: sim.url, key: 'sim-live-key', env: { MARKET_DATA_REDIS_URL: redis.url, MARKET_DATA_LOG_LEVEL: 'warn' } }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const answers: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => answers.push(...chunk.toString().split('\n').filter(Boolean)));
    const send = (message: Record<string, unknown>): void => void child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const answered = async (id: number): Promise<void> => {
      while (!answers.some((line) => (JSON.parse(line) as { id?: number }).id === id)) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      send({
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      await answered(1);
      send({ method: 'notifications/initialized' });
      // A call while Redis answers, then Redis freezes with a command of this process unanswered.
      send({ id: 2, method: 'tools/call', params: { name: 'market_total_options_volume', arguments: { limit: 2 } } });
      await answered(2);
      redis.freeze();
      send({ id: 3, method: 'tools/call', params: { name: 'market_total_options_volume', arguments: { limit: 3 } } });
      await answered(3);
      const closedAt = Date.now();
      child.stdin.end();
      const code = await exited;
      assert.equal(code, 0, 'the process ended of itself, with success');
      // Bounded by the command timeout and the exit grace (transports/exit.ts), not by Redis.
      assert.ok(Date.now() - closedAt < 10_000, `ended ${Date.now() - closedAt} ms after stdin closed`);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      redis.thaw();
      await sim.close();
      sim = undefined;
    }
  });

  redisTest(
    'a frozen Redis (connections open, no answers): the call goes on through the fallback within the command timeout',
    { timeout: 30_000 },
    async () => {
      assert.ok(redis);
      const fallback = new StandInGate(5);
      const gate = await createAccountGate({ redisUrl: redis.url, apiKey: 'key-frozen-test-1', fallback, probeMs: 300 });
      const signal = new AbortController().signal;
      try {
        assert.equal((await gate.view()).mode, 'redis');
        redis.freeze();
        const deadline = Date.now() + 3000;
        const permit = await gate.acquire({ free: false, deadline, signal });
        assert.ok(Date.now() < deadline, 'answered before its deadline');
        assert.equal(fallback.acquired, 1, 'the fallback gave the permit: never unguarded');
        permit.release({ status: 200 });
        const view = await gate.view();
        assert.equal(view.mode, 'in-process');
        assert.match(view.mode_reason ?? '', /no answer within/);
        const started = Date.now();
        (await gate.acquire({ free: false, deadline: Date.now() + 3000, signal })).release({ status: 200 });
        assert.ok(Date.now() - started < 500, 'later calls do not wait on the frozen Redis again');
        redis.thaw();
        for (let i = 0; i < 50 && (await gate.view()).mode !== 'redis'; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal((await gate.view()).mode, 'redis', 'back on Redis once it answers');
      } finally {
        redis.thaw();
        await gate.close();
      }
    },
  );
});
