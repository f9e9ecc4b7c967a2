/**
 * The account's limits under real conditions: upstream latency, and two or three server
 * processes (the built binary) sharing one account with no shared store. Separate
 * processes cannot share a fake clock, so these wait on real windows: scale tests, run
 * once per CI (see helpers/scale.ts). How much of each window is used is a figure of
 * bench/limits.mjs; one process's pacing is tested exactly in limits.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { withSimulator } from '../helpers/http.js';
import { connectV2, type Connected } from '../helpers/mcp.js';
import { scaleTest } from '../helpers/scale.js';

const PER_WINDOW = 60;
const WINDOW_MS = 6000;

/**
 * Waits for the start of the simulator's next window (real time: the servers are other
 * processes), so that a run's 120 calls meet two whole windows rather than a spent one.
 */
const windowStart = (windowMs: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, windowMs - (Date.now() % windowMs) + 20));

for (const [processes, countRefusedInFlight] of [
  [2, true],
  [3, true],
  [3, false],
] as const) {
  test(
    `${processes} processes on one account, 50 ms latency, 60 per 6 s, refused requests ${countRefusedInFlight ? '' : 'not '}counted: every call answers with data, 429s at most 5 %`,
    scaleTest,
    async () => {
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
          const calls = 120;
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
    },
  );
}
