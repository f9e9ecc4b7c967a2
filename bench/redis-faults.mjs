#!/usr/bin/env node
// Two failure modes of issue 19, measured through the built binary over stdio beside
// their floors, with the load average (figures from a loaded machine mean little):
//
// cache  N distinct answers of S MB through one process sharing a throwaway redis-server:
//        Redis's used memory after them and at its peak, beside the floor (empty Redis) and
//        the bound (floor + MARKET_DATA_REDIS_CACHE_MB); the issue saw 150 x 7.9 MB take it
//        from 9 to 1,202 MB. Also the time per call beside the same calls with no Redis.
// burst  P processes on one Redis start just after the account's window was spent (their
//        start-up openapi.json meets the 429), then B calls at once: how many are refused
//        at once and with what retry_after_seconds, the upstream 429s, the requests each
//        window served, and the time beside the window math (the spent window's reset, then
//        one window per 60 calls). The issue saw 64 to 182 of 300 refused with
//        retry_after_seconds 60 on a 6 s window. --no-redis: the processes without Redis,
//        each on its own gate (issue 34: one process needed a sixth window).
//
// Usage: node bench/redis-faults.mjs [cache|burst|all] [--calls=150] [--mb=7.9]
//          [--cache-mb=64] [--burst=300] [--processes=2] [--no-redis] [--cli=PATH]   (npm run build first;
//        needs redis-server on the PATH). A quick proof it works:
//        node bench/redis-faults.mjs all --calls=6 --mb=0.5 --cache-mb=2 --burst=40
/* global fetch */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createClient } from 'redis';
import { buildOpenApiDocument, DATASETS } from '../dist/catalog/index.js';
import { startSimulator } from '../dist/simulator/server.js';

const args = process.argv.slice(2);
const option = (name, fallback) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const which = args.find((a) => !a.startsWith('--')) ?? 'all';
// --cli=PATH: another build's dist/cli.js (a baseline), for a before/after.
const cli = args.find((a) => a.startsWith('--cli='))?.slice('--cli='.length) ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const KEY = 'sim-live-key';
const TOOL = 'market_total_options_volume';
const PATH = '/v1/market/total-options-volume';
const PER_WINDOW = 60;
const WINDOW_MS = 6000;

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

async function connect(url, env = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli],
    env: {
      PATH: process.env.PATH ?? '',
      MARKET_DATA_BASE_URL: url,
      MARKET_DATA_API_KEY: KEY,
      MARKET_DATA_LOG_LEVEL: 'warn',
      MARKET_DATA_CACHE_DIR: mkdtempSync(join(tmpdir(), 'mdmcp-bench-')),
      ...env,
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-redis-faults', version: '1.0.0' });
  await client.connect(transport);
  return client;
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
  const url = `redis://127.0.0.1:${port}`;
  const info = createClient({ url });
  await info.connect();
  const memory = async () => {
    const text = await info.info('memory');
    const field = (name) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
    return { used: field('used_memory'), peak: field('used_memory_peak') };
  };
  return {
    url,
    memory,
    stop: async () => {
      await info.quit().catch(() => undefined);
      child.kill('SIGKILL');
    },
  };
}

/** A fake upstream whose every data answer is about `mb` MB of distinct rows, with generous rate headers. */
async function bigUpstream(mb) {
  const row = JSON.stringify({ date: '2026-11-20', calls: 123456789, puts: 98765432, premium: 1234567.89, note: 'x'.repeat(40) });
  const rows = Math.max(1, Math.floor((mb * 2 ** 20) / (row.length + 1)));
  const body = Array.from({ length: rows }, () => row).join(',');
  const document = JSON.stringify(buildOpenApiDocument(DATASETS));
  let served = 0;
  const server = createHttpServer((req, res) => {
    const headers = {
      'content-type': 'application/json',
      'x-ratelimit-limit': '100000',
      'x-ratelimit-remaining': '99999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 60),
    };
    res.writeHead(200, headers);
    if (req.url?.startsWith('/v1/openapi.json')) return void res.end(document);
    served += 1;
    // Distinct answers: the first row names the request.
    res.end(`{"data":[{"request":${JSON.stringify(req.url ?? '')}},${body}],"_meta":{"request_id":"req-${served}"}}`);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    served: () => served,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
  };
}

async function timedCalls(client, calls) {
  const started = Date.now();
  let failed = 0;
  for (let i = 0; i < calls; i += 1) {
    const result = await client.callTool({ name: TOOL, arguments: { limit: 1 + i } }, { timeout: 120_000 });
    if (result.isError) failed += 1;
  }
  return { msPerCall: (Date.now() - started) / calls, failed };
}

async function cacheCase() {
  const calls = option('calls', 150);
  const mb = option('mb', 7.9);
  const cacheMb = option('cache-mb', 64);
  const upstream = await bigUpstream(mb);
  const redis = await startRedis();
  try {
    const floor = await redis.memory();
    const alone = await connect(upstream.url);
    const without = await timedCalls(alone, Math.min(calls, 10));
    await alone.close();
    const shared = await connect(upstream.url, { MARKET_DATA_REDIS_URL: redis.url, MARKET_DATA_REDIS_CACHE_MB: String(cacheMb) });
    const withRedis = await timedCalls(shared, calls);
    await shared.close();
    const after = await redis.memory();
    console.log(
      `cache: ${calls} distinct answers of ${mb} MB through one process on Redis (MARKET_DATA_REDIS_CACHE_MB=${cacheMb}); load ${load()}`,
    );
    console.log(
      [
        `redis used ${after.used.toFixed(1)} MB, peak ${after.peak.toFixed(1)} MB`,
        `floor (empty) ${floor.used.toFixed(1)} MB, bound ${(floor.used + cacheMb).toFixed(1)} MB`,
        `peak/bound x${(after.peak / (floor.used + cacheMb)).toFixed(2)}`,
      ].join('  |  '),
    );
    console.log(
      [
        `per call ${withRedis.msPerCall.toFixed(0)} ms with Redis`,
        `floor ${without.msPerCall.toFixed(0)} ms without (first ${Math.min(calls, 10)} calls)`,
        `x${(withRedis.msPerCall / without.msPerCall).toFixed(2)}`,
        `failed ${withRedis.failed + without.failed}`,
        `upstream requests ${upstream.served()}`,
      ].join('  |  '),
    );
  } finally {
    await redis.stop();
    await upstream.close();
  }
}

async function burstCase() {
  const burst = option('burst', 300);
  const processes = option('processes', 2);
  const withRedis = !args.includes('--no-redis');
  const sim = await startSimulator({ materializationMs: 0, limits: { perWindow: PER_WINDOW, windowMs: WINDOW_MS, inFlight: 5 } });
  const redis = withRedis ? await startRedis() : undefined;
  try {
    // Spend the account's window from outside, just after it opened.
    await new Promise((r) => setTimeout(r, WINDOW_MS - (Date.now() % WINDOW_MS) + 20));
    let spent = 0;
    let resetAt = 0;
    while (spent < 200) {
      const answer = await fetch(`${sim.url}${PATH}?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
      await answer.arrayBuffer();
      spent += 1;
      resetAt = Number(answer.headers.get('x-ratelimit-reset') ?? 0) * 1000;
      if (answer.status === 429) break;
    }
    const clients = await Promise.all(
      Array.from({ length: processes }, () => connect(sim.url, redis ? { MARKET_DATA_REDIS_URL: redis.url } : {})),
    );
    const started = Date.now();
    const refused = [];
    let failed = 0;
    await Promise.all(
      Array.from({ length: burst }, async (_, i) => {
        const result = await clients[i % processes].callTool({ name: TOOL, arguments: { limit: 1 + (i % 500) } }, { timeout: 120_000 });
        if (!result.isError) return;
        const text = result.content?.[0]?.text ?? '';
        if (/nothing was sent/.test(text)) refused.push(Number(/"retry_after_seconds":\s*(\d+)/.exec(text)?.[1] ?? NaN));
        else failed += 1;
      }),
    );
    const elapsed = Date.now() - started;
    await Promise.all(clients.map((c) => c.close()));
    const upstream = sim.api.requests.filter((r) => r.at >= started);
    const tooMany = upstream.filter((r) => r.status === 429).length;
    // The requests each window served, from the upstream's own log.
    const perWindow = new Map();
    for (const r of upstream.filter((u) => u.status === 200)) {
      const window = Math.floor(r.at / WINDOW_MS);
      perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
    }
    const floorMs = Math.max(0, resetAt - started) + (Math.ceil(burst / PER_WINDOW) - 1) * WINDOW_MS;
    console.log(
      `burst: ${processes} process${processes > 1 ? 'es' : ''} ${redis ? 'on Redis' : 'without Redis'} start after the window was spent (${spent} requests, the last a 429), then ${burst} calls at once; ${PER_WINDOW} per ${WINDOW_MS / 1000} s, 5 in flight; load ${load()}`,
    );
    console.log(
      [
        `refused at once ${refused.length} (retry_after_seconds max ${refused.length ? Math.max(...refused) : '-'})`,
        `other failures ${failed}`,
        `upstream 429s ${tooMany}`,
        `windows ${perWindow.size} (${[...perWindow.values()].join('/')})`,
        `time ${(elapsed / 1000).toFixed(1)} s vs floor ${(floorMs / 1000).toFixed(1)} s (x${(elapsed / Math.max(1, floorMs)).toFixed(2)})`,
      ].join('  |  '),
    );
  } finally {
    await redis?.stop();
    await sim.close();
  }
}

console.log(`Node ${process.version}; load average before ${load()}`);
if (which === 'cache' || which === 'all') await cacheCase();
if (which === 'burst' || which === 'all') await burstCase();
