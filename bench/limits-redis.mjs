#!/usr/bin/env node
// The account gate shared on Redis: 1, 2, 4 and 8 processes of one account against the
// simulator (50 ms latency, 60 requests per 6 s window, 5 in flight), each process taking
// permits from the gate on one throwaway redis-server and sending real requests.
// Prints per run: calls answered with data, 429s by code, requests used per full window
// (% of the limit), total time against the window math; then the cost of one
// acquire + release. Usage: node bench/limits-redis.mjs [calls=360]   (npm run build first;
// needs redis-server on the PATH). The lead folds this into bench/limits.mjs.
/* global AbortController, AbortSignal */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const WINDOW_MS = 6000;
const PER_WINDOW = 60;
const PATH = '/v1/derived/dealer-gex/SPY/history';
const self = fileURLToPath(import.meta.url);

if (process.argv[2] === 'child') await child(JSON.parse(process.argv[3]));
else await main(Number(process.argv[2] ?? 360));

async function main(calls) {
  const { startSimulator } = await import('../dist/simulator/server.js');
  const port = await freePort();
  const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  await new Promise((resolve, reject) => {
    let seen = '';
    redis.once('error', reject);
    redis.stdout.on('data', (chunk) => (seen += chunk) && seen.includes('Ready to accept') && resolve());
  });
  const redisUrl = `redis://127.0.0.1:${port}`;
  const rows = [];
  try {
    for (const processes of [1, 2, 4, 8]) {
      const sim = await startSimulator({ limits: { perWindow: PER_WINDOW, windowMs: WINDOW_MS, inFlight: 5 } });
      sim.api.faults.latencyMs = 50;
      await flush(redisUrl);
      const started = Date.now();
      const share = Math.ceil(calls / processes);
      const results = await Promise.all(
        Array.from({ length: processes }, (_, i) =>
          runChild({ redisUrl, simUrl: sim.url, calls: Math.min(share, calls - i * share), concurrency: 8 }),
        ),
      );
      const elapsed = (Date.now() - started) / 1000;
      const firstAt = Math.min(...sim.api.requests.map((r) => r.at));
      const lastAt = Math.max(...sim.api.requests.map((r) => r.doneAt));
      const records = results.flat();
      const upstream = sim.api.requests.filter((r) => r.path === PATH);
      const byCode = {};
      for (const r of upstream.filter((u) => u.status === 429)) byCode[r.code] = (byCode[r.code] ?? 0) + 1;
      const perWindow = new Map();
      for (const r of upstream.filter((u) => u.status === 200)) {
        const start = Math.floor(r.at / WINDOW_MS) * WINDOW_MS;
        perWindow.set(start, (perWindow.get(start) ?? 0) + 1);
      }
      const full = [...perWindow.keys()]
        .sort((a, b) => a - b)
        .slice(1, -1)
        .map((k) => perWindow.get(k) / PER_WINDOW);
      rows.push({
        processes,
        calls: records.length,
        ok: records.filter((r) => r.ok).length,
        failed: records.filter((r) => !r.ok).length,
        requests: upstream.length,
        '429s': upstream.filter((u) => u.status === 429).length,
        by_code: JSON.stringify(byCode),
        'window use min %': full.length ? Math.round(Math.min(...full) * 100) : '-',
        'window use mean %': full.length ? Math.round((full.reduce((a, b) => a + b, 0) / full.length) * 100) : '-',
        'max in flight': sim.api.inFlight('acct_live').max,
        windows: perWindow.size,
        'time s': elapsed.toFixed(1),
        load: loadavg()[0].toFixed(2),
        'first to last request s': ((lastAt - firstAt) / 1000).toFixed(1),
        'window math s': ((Math.ceil(calls / PER_WINDOW) - 1) * WINDOW_MS) / 1000,
      });
      await sim.close();
    }
    console.table(rows);
    console.log(
      `acquire + release through Redis, one process, no waiting: ${(await roundTrip(redisUrl)).toFixed(3)} ms each (mean of 2000)`,
    );
    console.log(
      'time s: from spawning the processes (node start-up included). window math: the windows the calls need after the first, were it entered at its start; a first window entered mid-way makes first-to-last shorter. "window use" counts full windows only (not the first, entered mid-way, nor the last).',
    );
  } finally {
    redis.kill('SIGKILL');
  }
}

async function roundTrip(redisUrl) {
  const { createAccountGate } = await import('../dist/redis/factory.js');
  const gate = await createAccountGate({ redisUrl, apiKey: 'bench-round-trip-key', fallback: refusingFallback(), perWindow: 1_000_000 });
  const signal = new AbortController().signal;
  for (let i = 0; i < 200; i += 1) (await gate.acquire({ free: false, deadline: Date.now() + 5000, signal })).release({ status: 200 });
  const started = process.hrtime.bigint();
  for (let i = 0; i < 2000; i += 1) (await gate.acquire({ free: false, deadline: Date.now() + 5000, signal })).release({ status: 200 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6 / 2000;
  await gate.close();
  return ms;
}

function runChild(settings) {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [self, 'child', JSON.stringify(settings)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk) => (out += chunk));
    proc.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`))));
  });
}

/** One process of the account: permits from the Redis gate, requests to the simulator, the 429 policy. */
async function child({ redisUrl, simUrl, calls, concurrency }) {
  const { createAccountGate } = await import('../dist/redis/factory.js');
  const { HttpTransport } = await import('../dist/api/transport.js');
  const gate = await createAccountGate({ redisUrl, apiKey: 'sim-live-key', fallback: refusingFallback() });
  const transport = new HttpTransport({
    baseUrl: simUrl,
    apiKey: 'sim-live-key',
    maxResponseBytes: 4_000_000,
    userAgent: 'bench',
    connections: 10,
  });
  const records = [];
  let next = 0;
  const one = async () => {
    const deadline = Date.now() + 50_000;
    const signal = AbortSignal.timeout(50_000);
    for (;;) {
      let permit;
      try {
        permit = await gate.acquire({ free: false, deadline, signal });
      } catch (error) {
        return { ok: false, code: error.code };
      }
      const response = await transport.get(PATH, signal).catch((error) => error);
      if (!('status' in response) || typeof response.status !== 'number') {
        permit.release({});
        return { ok: false, code: response.code };
      }
      const code = response.body?.error?.code;
      permit.release({ status: response.status, headers: response.limits, code });
      if (response.status === 200) return { ok: true };
      if (response.status !== 429) return { ok: false, code };
      const wait = (response.retryAfterSeconds ?? 1) * 1000;
      if (code === 'RATE_LIMITED') gate.pause(Date.now() + wait);
      else if (code === 'IN_FLIGHT_EXCEEDED') {
        gate.inFlightRefused();
        await new Promise((r) => setTimeout(r, wait));
      } else return { ok: false, code };
    }
  };
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        next += 1;
        records.push(await one());
      }
    }),
  );
  await gate.close();
  await transport.close();
  process.stdout.write(JSON.stringify(records));
}

/** Redis stays up in this benchmark: a permit from the fallback would be a bug, so it refuses. */
function refusingFallback() {
  const refuse = () => Promise.reject(Object.assign(new Error('fallback used'), { code: 'FALLBACK_USED' }));
  return {
    acquire: refuse,
    pause() {},
    inFlightRefused() {},
    latchQuota() {},
    rememberDisabled() {},
    disabledFor: () => Promise.resolve(undefined),
    view: refuse,
    close: () => Promise.resolve(),
  };
}

async function flush(redisUrl) {
  const { createClient } = await import('redis');
  const client = createClient({ url: redisUrl });
  await client.connect();
  await client.flushAll();
  await client.close();
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
