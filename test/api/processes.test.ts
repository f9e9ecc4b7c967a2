/**
 * The account's limits under real conditions: upstream latency, and two or three server
 * processes (the built binary) sharing one account with no shared store.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { withClient } from '../helpers/client.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, type Connected } from '../helpers/mcp.js';
import { TICKERS } from '../helpers/fixtures.js';

const PER_WINDOW = 60;
const WINDOW_MS = 6000;

/** Distinct calls (no cache hit, no shared request): ticker × limit. */
const callArgs = (i: number): { ticker: string; limit: number } => ({
  ticker: TICKERS[i % TICKERS.length] ?? 'SPY',
  limit: 1 + Math.floor(i / TICKERS.length),
});

/** Waits for the start of the simulator's next window, so that each run sees whole windows. */
const windowStart = (windowMs: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, windowMs - (Date.now() % windowMs) + 20));

/** Requests the server counted in each window, in order. */
function countedPerWindow(sim: RunningSimulator, windowMs: number, countRefused: boolean): number[] {
  const counts = new Map<number, number>();
  for (const r of sim.api.requests) {
    if (r.code === 'RATE_LIMITED' || (!countRefused && r.code === 'IN_FLIGHT_EXCEEDED')) continue;
    const window = Math.floor(r.at / windowMs);
    counts.set(window, (counts.get(window) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
}

test('one process, 5 in flight, 50 ms latency: at least 98 % of every full window is used, with no RATE_LIMITED', async () => {
  const windowMs = 3000;
  await withSimulator({ limits: { perWindow: PER_WINDOW, windowMs } }, async (sim) => {
    sim.api.faults.latencyMs = 50;
    await withClient(sim, async ({ call }) => {
      await windowStart(windowMs);
      const calls = 150;
      const results = await Promise.all(
        Array.from({ length: calls }, (_, i) => call('derived.dealer_gex_history', callArgs(i).ticker, { limit: callArgs(i).limit })),
      );
      assert.equal(results.length, calls);
      assert.deepEqual(
        sim.api.requests.filter((r) => r.status === 429).map((r) => r.code),
        [],
      );
      const windows = countedPerWindow(sim, windowMs, true);
      const full = windows.slice(0, -1);
      assert.ok(full.length >= 2, `windows ${windows.join('/')}`);
      for (const used of full) assert.ok(used >= 0.98 * PER_WINDOW, `a window used ${used} of ${PER_WINDOW} (${windows.join('/')})`);
    });
  });
});

for (const [processes, countRefusedInFlight] of [
  [2, true],
  [3, true],
  [3, false],
] as const) {
  test(`${processes} processes on one account, 50 ms latency, 60 per 6 s, refused requests ${countRefusedInFlight ? '' : 'not '}counted: every call answers with data, 429s at most 5 %`, async () => {
    await withSimulator({ limits: { perWindow: PER_WINDOW, windowMs: WINDOW_MS, countRefusedInFlight } }, async (sim) => {
      sim.api.faults.latencyMs = 50;
      const servers: Connected<Client>[] = await Promise.all(
        Array.from({ length: processes }, () =>
          connectV2({ baseUrl: sim.url, key: 'sim-live-key', env: { MARKET_DATA_LOG_LEVEL: 'warn' } }),
        ),
      );
      try {
        await windowStart(WINDOW_MS);
        const from = Date.now();
        const calls = 180;
        const results = await Promise.all(
          Array.from({ length: calls }, (_, i) =>
            (servers[i % processes] as Connected<Client>).client.callTool(
              // A dataset whose limit goes upstream: distinct calls, none served from a shared page.
              { name: 'market_total_options_volume', arguments: { limit: i + 1 } },
              { timeout: 70_000 },
            ),
          ),
        );
        const failed = results.filter((r) => r.isError === true).map((r) => JSON.stringify(r.structuredContent).slice(0, 200));
        assert.deepEqual(failed, [], 'every call answered with data');
        const requests = sim.api.requests.filter((r) => r.at >= from && r.operationId === 'market.total_options_volume');
        const refused = requests.filter((r) => r.status === 429);
        assert.ok(
          refused.length <= 0.05 * requests.length,
          `${refused.length} 429s of ${requests.length} requests: ${refused.map((r) => r.code).join(', ')}`,
        );
        assert.ok(sim.api.inFlight('acct_live').max <= 5 + processes, 'the account never saw a storm');
      } finally {
        await Promise.all(servers.map((s) => s.close()));
      }
    });
  });
}
