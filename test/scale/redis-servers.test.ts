/**
 * Server processes (the built binary over stdio) of one account sharing one Redis through
 * MARKET_DATA_REDIS_URL: the limits are kept exactly across processes, a result cached by
 * one serves another, and api_status says which mode is active.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, type Connected } from '../helpers/mcp.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';

const PER_WINDOW = 60;
const WINDOW_MS = 6000;

const windowStart = (windowMs: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, windowMs - (Date.now() % windowMs) + 20));

function countedPerWindow(sim: RunningSimulator, from: number): number[] {
  const counts = new Map<number, number>();
  for (const r of sim.api.requests) {
    if (r.at < from || r.status === 429) continue;
    const window = Math.floor(r.at / WINDOW_MS);
    counts.set(window, (counts.get(window) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
}

async function withServers(
  count: number,
  sim: RunningSimulator,
  redis: ThrowawayRedis,
  run: (servers: Connected<Client>[]) => Promise<void>,
): Promise<void> {
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      connectV2({ baseUrl: sim.url, key: 'sim-live-key', env: { MARKET_DATA_LOG_LEVEL: 'warn', MARKET_DATA_REDIS_URL: redis.url } }),
    ),
  );
  try {
    await run(servers);
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}

redisTest(
  '4 server processes sharing one Redis, 50 ms latency: every call answers with data, at most 1 % 429s, at least 95 % of each full window used',
  { timeout: 120_000 },
  async () => {
    const redis = await ThrowawayRedis.start();
    try {
      await withSimulator({ limits: { perWindow: PER_WINDOW, windowMs: WINDOW_MS } }, async (sim) => {
        sim.api.faults.latencyMs = 50;
        await withServers(4, sim, redis, async (servers) => {
          await windowStart(WINDOW_MS);
          const from = Date.now();
          const calls = 250;
          // Distinct calls (a distinct limit each), so that no cache or shared request hides the load.
          const results = await Promise.all(
            Array.from({ length: calls }, (_, i) =>
              (servers[i % servers.length] as Connected<Client>).client.callTool(
                { name: 'market_total_options_volume', arguments: { limit: i + 1 } },
                { timeout: 70_000 },
              ),
            ),
          );
          const failed = results.filter((r) => r.isError === true).map((r) => JSON.stringify(r.content).slice(0, 200));
          assert.deepEqual(failed, [], 'every call answered with data');
          const requests = sim.api.requests.filter((r) => r.at >= from && r.operationId === 'market.total_options_volume');
          const refused = requests.filter((r) => r.status === 429);
          assert.ok(
            refused.length <= 0.01 * requests.length,
            `${refused.length} 429s of ${requests.length}: ${refused.map((r) => r.code).join(', ')}`,
          );
          assert.ok(
            sim.api.inFlight('acct_live').max <= 5,
            `the in-flight cap held across processes (max ${sim.api.inFlight('acct_live').max})`,
          );
          const windows = countedPerWindow(sim, from);
          const full = windows.slice(0, -1);
          assert.ok(full.length >= 3, `windows ${windows.join('/')}`);
          for (const used of full) assert.ok(used >= 0.95 * PER_WINDOW, `a window used ${used} of ${PER_WINDOW} (${windows.join('/')})`);
        });
      });
    } finally {
      await redis.kill();
    }
  },
);

redisTest(
  'a result cached by one server process serves another without an upstream request; api_status says the limits are shared on Redis',
  { timeout: 60_000 },
  async () => {
    const redis = await ThrowawayRedis.start();
    try {
      await withSimulator({}, async (sim) => {
        await withServers(2, sim, redis, async ([first, second]) => {
          assert.ok(first && second);
          const args = { name: 'stocks_ticker_exchanges', arguments: { limit: 7 } };
          const a = await first.client.callTool(args);
          assert.notEqual(a.isError, true, JSON.stringify(a.content));
          const b = await second.client.callTool(args);
          assert.notEqual(b.isError, true, JSON.stringify(b.content));
          const upstream = sim.api.requests.filter((r) => r.operationId === 'stocks.ticker_exchanges');
          assert.equal(upstream.length, 1, 'one upstream request for both processes');
          const meta = (b.structuredContent as { meta?: { cache_hit?: boolean } } | undefined)?.meta;
          assert.equal(meta?.cache_hit, true, 'the second process says its answer came from the cache');
          assert.deepEqual((b.structuredContent as { data?: unknown }).data, (a.structuredContent as { data?: unknown }).data);

          const status = await second.client.callTool({ name: 'api_status', arguments: {} });
          const budget = (status.structuredContent as { budget?: { mode?: string } }).budget;
          assert.equal(budget?.mode, 'redis');
        });
      });
    } finally {
      await redis.kill();
    }
  },
);
