#!/usr/bin/env node
// How the client spends the account's limits when 1, 2 or 3 server processes share one
// account, against the simulator with a 60-requests-per-6-s window and 5 in flight, at
// 0 and 50 ms of upstream latency. Every process is the built binary over stdio; the calls
// are distinct (no cache hit, no shared request), all started at once at a window's start.
// Prints, per run: the share of each full window used, 429s by code, calls failed, and the
// total time beside the window math (the time the windows alone need).
// With --redis, every process shares one throwaway redis-server (Debian's redis-server on
// PATH) through MARKET_DATA_REDIS_URL, for 1, 2, 4 and 8 processes.
// Usage: node bench/limits.mjs [calls=300] [--uncounted] [--redis]   (build first: npm run build)
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startSimulator } from '../dist/simulator/server.js';

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const args = process.argv.slice(2);
const calls = Number(args.find((a) => /^\d+$/.test(a)) ?? 300);
const countRefusedInFlight = !args.includes('--uncounted');
const withRedis = args.includes('--redis');
const PER_WINDOW = 60;
const WINDOW_MS = 6000;
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
/**
 * Distinct calls: one limit each on a dataset whose limit goes upstream, so that no cache
 * or shared request hides the load (dealer history pages are read 60 at a time and shared).
 */
const TOOL = 'market_total_options_volume';
const OPERATION = 'market.total_options_volume';
const callArgs = (i) => ({ limit: 1 + (i % 500) });

async function connect(url, redisUrl) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli],
    env: {
      PATH: process.env.PATH ?? '',
      MARKET_DATA_BASE_URL: url,
      MARKET_DATA_API_KEY: 'sim-live-key',
      MARKET_DATA_LOG_LEVEL: 'warn',
      MARKET_DATA_CACHE_DIR: mkdtempSync(join(tmpdir(), 'mdmcp-bench-')),
      ...(redisUrl ? { MARKET_DATA_REDIS_URL: redisUrl } : {}),
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-limits', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function run(processes, latencyMs) {
  const sim = await startSimulator({
    materializationMs: 0,
    limits: { perWindow: PER_WINDOW, windowMs: WINDOW_MS, countRefusedInFlight },
  });
  sim.api.faults.latencyMs = latencyMs;
  const redis = withRedis ? await startRedis() : undefined;
  const clients = await Promise.all(Array.from({ length: processes }, () => connect(sim.url, redis?.url)));
  // Warm each process (catalog fetch) outside the measured run, then start at a window's start.
  sim.api.requests.length = 0;
  await new Promise((r) => setTimeout(r, WINDOW_MS - (Date.now() % WINDOW_MS) + 20));
  const started = Date.now();
  const failures = new Map();
  await Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      const client = clients[i % processes];
      const result = await client.callTool({ name: TOOL, arguments: callArgs(i) }, { timeout: 70_000 });
      if (result.isError) {
        const code = result.structuredContent?.error?.code ?? /"code":"([A-Z_]+)"/.exec(result.content?.[0]?.text ?? '')?.[1] ?? 'unknown';
        failures.set(code, (failures.get(code) ?? 0) + 1);
      }
    }),
  );
  const totalMs = Date.now() - started;
  if (process.env.BENCH_TRACE)
    for (const r of sim.api.requests.filter((x) => x.status === 429))
      console.log(`  ${r.code} at ${((r.at - started) / 1000).toFixed(3)} s`);
  const requests = sim.api.requests.filter((r) => r.operationId === OPERATION && r.at >= started);
  const by429 = new Map();
  for (const r of requests) if (r.status === 429) by429.set(r.code, (by429.get(r.code) ?? 0) + 1);
  // What the server counted against each window: everything that passed its rate check.
  const counted = requests.filter((r) => r.code !== 'RATE_LIMITED' && (countRefusedInFlight || r.code !== 'IN_FLIGHT_EXCEEDED'));
  const perWindow = new Map();
  for (const r of counted) perWindow.set(Math.floor(r.at / WINDOW_MS), (perWindow.get(Math.floor(r.at / WINDOW_MS)) ?? 0) + 1);
  const windows = [...perWindow.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  const full = windows.slice(0, -1); // the last window holds the remainder
  const usedPct = full.length ? (100 * full.reduce((a, b) => a + b, 0)) / (full.length * PER_WINDOW) : NaN;
  const mathMs = (Math.ceil(calls / PER_WINDOW) - 1) * WINDOW_MS;
  await Promise.all(clients.map((c) => c.close()));
  await sim.close();
  redis?.stop();
  const fmt = (m) => [...m.entries()].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  console.log(
    [
      `${processes} process${processes > 1 ? 'es' : '  '}`,
      `${String(latencyMs).padStart(2)} ms`,
      `requests ${String(requests.length).padStart(4)}`,
      `window used ${usedPct.toFixed(1).padStart(5)} % (${full.join('/')})`,
      `429s ${String([...by429.values()].reduce((a, b) => a + b, 0)).padStart(3)} [${fmt(by429)}]`,
      `failed ${[...failures.values()].reduce((a, b) => a + b, 0)} [${fmt(failures)}]`,
      `time ${(totalMs / 1000).toFixed(1)} s vs math ${(mathMs / 1000).toFixed(1)} s (x${(totalMs / mathMs).toFixed(2)})`,
      `load ${load()}`,
    ].join('  '),
  );
}

/** A throwaway redis-server on a free loopback port, ready to accept connections. */
async function startRedis() {
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const port = probe.address().port;
  await new Promise((r) => probe.close(r));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((resolve, reject) => {
    let seen = '';
    child.once('error', reject);
    child.stdout.on('data', (chunk) => {
      seen += chunk.toString();
      if (seen.includes('Ready to accept connections')) resolve();
    });
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

console.log(
  `${withRedis ? 'shared on Redis: ' : ''}${calls} calls, ${PER_WINDOW} per ${WINDOW_MS / 1000} s window, 5 in flight, refused IN_FLIGHT_EXCEEDED ${countRefusedInFlight ? 'counted' : 'not counted'} by the window; Node ${process.version}; load average ${load()}`,
);
const only = process.env.BENCH_ONLY?.split(',').map(Number);
for (const processes of withRedis ? [1, 2, 4, 8] : [1, 2, 3]) {
  for (const latency of [0, 50]) {
    if (only && !(only[0] === processes && only[1] === latency)) continue;
    await run(processes, latency);
  }
}
