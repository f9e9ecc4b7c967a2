/**
 * Nodes of one account through the built binary and a real redis-server that stops: the
 * three nodes Redis listed hold together exactly the account's 5 in-flight slots (the
 * remainder by rank), and a node started after Redis stopped keeps to a part that leaves
 * room for them (its node's record of the count, MARKET_DATA_EXPECTED_PROCESSES, or the
 * assumed count), never the whole account.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { isTradingDay } from '../../src/catalog/market-calendar.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { connectV2, freshCacheDir, type Connected } from '../helpers/mcp.js';
import { eventually } from '../helpers/wait.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';

const IN_FLIGHT = 5;

interface Budget {
  mode: string;
  mode_reason: string | null;
  max_in_flight: number;
}

async function budgetOf(node: Client): Promise<Budget> {
  const status = await node.callTool({ name: 'api_status', arguments: { details: true } });
  return (status.structuredContent as { budget: Budget }).budget;
}

/** The count a node's state directory holds, if any. */
function recorded(dir: string): number | undefined {
  const file = readdirSync(dir).find((name) => /^members-[0-9a-f]+\.json$/.test(name));
  return file ? (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { processes: number }).processes : undefined;
}

/** Weekdays that are sessions, one per call: no two calls share an answer. */
function sessions(count: number): string[] {
  const days: string[] = [];
  const day = new Date(Date.UTC(2026, 8, 30));
  while (days.length < count) {
    day.setUTCDate(day.getUTCDate() - 1);
    const date = day.toISOString().slice(0, 10);
    if (isTradingDay(date)) days.push(date);
  }
  return days;
}

/** The most requests the upstream had in flight at once. */
function peakInFlight(requests: readonly { at: number; doneAt: number }[]): number {
  const edges = requests.flatMap((r) => [
    { at: r.at, step: 1 },
    { at: r.doneAt, step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let peak = 0;
  for (const edge of edges) peak = Math.max(peak, (now += edge.step));
  return peak;
}

describe('nodes of one account while Redis is down', () => {
  let redis: ThrowawayRedis | undefined;
  let sim: RunningSimulator | undefined;
  const nodes: Connected<Client>[] = [];
  before(async () => {
    redis = await ThrowawayRedis.start().catch(() => undefined);
  });
  after(async () => {
    for (const node of nodes) await node.close().catch(() => undefined);
    await sim?.close();
    await redis?.kill();
  });

  redisTest(
    'the three nodes Redis listed hold all 5 in-flight slots and no more; nodes started after it stopped leave room for them',
    { timeout: 90_000 },
    async () => {
      assert.ok(redis);
      sim = await startSimulator({ limits: { perWindow: 60, windowMs: 10_000, inFlight: IN_FLIGHT } });
      sim.api.faults.latencyMs = 300;
      const baseUrl = sim.url;
      const start = async (env: Record<string, string>): Promise<Connected<Client>> => {
        const node = await connectV2({
          baseUrl,
          key: 'sim-live-key',
          env: { MARKET_DATA_REDIS_URL: redis?.url ?? '', MARKET_DATA_LOG_LEVEL: 'warn', ...env },
        });
        nodes.push(node);
        return node;
      };
      const dirs = [freshCacheDir(), freshCacheDir(), freshCacheDir()];
      const team: Connected<Client>[] = [];
      for (const dir of dirs) team.push(await start({ MARKET_DATA_CACHE_DIR: dir }));
      // Each node's state directory keeps the count once Redis has listed all three.
      await eventually(() => dirs.every((dir) => recorded(dir) === 3), 'each node to record 3 processes');

      await redis.kill();
      // Each node falls back as it meets the closed connection.
      await eventually(
        async () => (await Promise.all(team.map((n) => budgetOf(n.client)))).every((b) => b.mode === 'in-process'),
        'every node on its own gate',
      );
      const parts = await Promise.all(team.map((n) => budgetOf(n.client)));
      for (const part of parts) assert.match(part.mode_reason ?? '', /3 processes of the account, as last seen through Redis/);
      assert.equal(
        parts.reduce((sum, b) => sum + b.max_in_flight, 0),
        IN_FLIGHT,
        `the parts add up to the account's slots: ${parts.map((b) => b.max_in_flight).join(' + ')}`,
      );

      // Under load from all three, the upstream sees the account's slots used and never exceeded.
      const sentFrom = sim.api.requests.length;
      const days = sessions(36);
      await Promise.all(
        days.map((day, i) => {
          const node = team[i % team.length];
          assert.ok(node);
          return node.client.callTool({ name: 'market_total_options_volume', arguments: { from: day, to: day } });
        }),
      );
      const upstream = sim.api.requests.slice(sentFrom).filter((r) => r.path.includes('/total-options-volume'));
      assert.ok(upstream.length >= days.length, 'each call went upstream');
      assert.deepEqual(
        upstream.filter((r) => r.status === 429).map((r) => r.code),
        [],
        'no request refused',
      );
      const peak = peakInFlight(upstream);
      assert.ok(peak <= IN_FLIGHT, `at most the account's ${IN_FLIGHT} in flight (${peak})`);
      assert.ok(peak > Math.floor(IN_FLIGHT / 3) * 3, `more than floor(5/3) x 3 in flight at once (${peak}): the remainder is used`);

      // Started after Redis stopped: what each can know of the others, never the whole account.
      const fresh = await budgetOf((await start({})).client);
      assert.equal(fresh.mode, 'in-process');
      assert.match(fresh.mode_reason ?? '', /processes of the account, assumed/);
      assert.ok(fresh.max_in_flight < IN_FLIGHT, `a fresh node takes ${fresh.max_in_flight} of ${IN_FLIGHT}`);

      const expected = await budgetOf((await start({ MARKET_DATA_EXPECTED_PROCESSES: '4' })).client);
      assert.match(expected.mode_reason ?? '', /4 processes of the account, as MARKET_DATA_EXPECTED_PROCESSES says/);
      assert.equal(expected.max_in_flight, Math.floor(IN_FLIGHT / 4));

      // The first node restarts during the outage: its state directory still says 3.
      const first = team[0];
      assert.ok(first);
      await first.close();
      const restarted = await budgetOf((await start({ MARKET_DATA_CACHE_DIR: dirs[0] ?? '' })).client);
      assert.match(restarted.mode_reason ?? '', /3 processes of the account, as this node last saw through Redis/);
      assert.equal(restarted.max_in_flight, Math.floor(IN_FLIGHT / 3), 'the even part: it is on no list Redis gave in this life');
    },
  );
});
