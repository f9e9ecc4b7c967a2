#!/usr/bin/env node
// A team's hosted deployment under load: three --http nodes behind HAProxy sharing one
// Redis, four users signed in through a real OpenID provider, one account (60 requests a
// window, 5 in flight) on the simulator with 50 ms latency. Prints, beside their floors:
// calls answered, upstream 429s, how much of each window was used, each user's share; in
// the full run one node is killed and Redis restarted mid-run, and what each did to the
// calls is reported.
// Usage: npm run build:test && node bench/hosted.mjs [--reduced] [--json]
//   --reduced: short windows, fewer calls, no faults (what CI runs once, test/team/hosted.test.ts)
//   --no-faults: the full run without killing a node or restarting Redis
//   --json:    also print the figures as one JSON line at the end
// Needs haproxy and redis-server on PATH (Debian: apt-get install -y haproxy redis-server).
/* global fetch */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { isTradingDay } from '../dist/simulator/calendar.js';
import { startSimulator } from '../dist/simulator/server.js';
import { DESK, SCOPE, startIdentityProvider } from '../dist-test/test/helpers/identity-provider.js';

const reduced = process.argv.includes('--reduced');
const asJson = process.argv.includes('--json');
const withFaults = !reduced && !process.argv.includes('--no-faults');
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const PER_WINDOW = 60;
const IN_FLIGHT = 5;
const LATENCY_MS = 50;
const WINDOW_MS = reduced ? 4000 : 10_000;
const CALLS_PER_USER = reduced ? 35 : 100;
const CONCURRENCY_PER_USER = 8;
const NODES = 3;
const FLOORS = { windowUsedPct: 95, max429Pct: 1, maxShareSpreadPct: 20 };

const children = [];
const log = (line) => process.stdout.write(`${line}\n`);

/** The n-th weekday before 2026-10-30, as YYYY-MM-DD. */
function tradingDay(n) {
  const day = new Date(Date.UTC(2026, 9, 30));
  for (let left = n; left > 0;) {
    day.setUTCDate(day.getUTCDate() - 1);
    // Sessions only: the server answers a weekend or holiday itself, without a request.
    if (isTradingDay(day.toISOString().slice(0, 10))) left -= 1;
  }
  return day.toISOString().slice(0, 10);
}

async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Spawns a process and resolves once its output matches `ready`. */
function start(command, args, options, ready) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.push(child);
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start: ${seen.slice(-500)}`)), 20_000);
    const look = (chunk) => {
      seen += chunk.toString();
      if (ready.test(seen)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on('data', look);
    if (process.env.HOSTED_DEBUG) child.stderr.on('data', (c) => process.stderr.write(c));
    child.stderr.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}): ${seen.slice(-500)}`));
    });
  });
}

async function startRedis(port) {
  return start('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {}, /Ready to accept/);
}

function kill(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function main() {
  const sim = await startSimulator({ limits: { perWindow: PER_WINDOW, windowMs: WINDOW_MS, inFlight: IN_FLIGHT }, materializationMs: 0 });
  sim.api.faults.latencyMs = LATENCY_MS;
  const idp = await startIdentityProvider();
  const redisPort = await freePort();
  let redis = await startRedis(redisPort);
  const proxyPort = await freePort();
  const resource = `http://127.0.0.1:${proxyPort}/mcp`;
  const nodePorts = await Promise.all(Array.from({ length: NODES }, freePort));
  const env = {
    PATH: process.env.PATH ?? '',
    MARKET_DATA_BASE_URL: sim.url,
    MARKET_DATA_API_KEY: 'sim-live-key',
    MARKET_DATA_ACCOUNT_ID: 'acct_live',
    MARKET_DATA_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    MARKET_DATA_OAUTH_ISSUER: idp.issuer,
    MARKET_DATA_OAUTH_RESOURCE: resource,
    MARKET_DATA_LOG_LEVEL: 'warn',
  };
  const nodes = await Promise.all(
    nodePorts.map((port) =>
      start(
        process.execPath,
        [CLI, '--http', '--port', String(port)],
        { env: { ...env, MARKET_DATA_CACHE_DIR: mkdtempSync(join(tmpdir(), 'mdmcp-hosted-')) } },
        /listening on/,
      ),
    ),
  );
  const config = join(mkdtempSync(join(tmpdir(), 'mdmcp-haproxy-')), 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 65s',
      '  timeout server 65s',
      '  retries 2',
      '  option redispatch',
      'frontend mcp',
      `  bind 127.0.0.1:${proxyPort}`,
      '  default_backend nodes',
      'backend nodes',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  default-server inter 1s fall 1 rise 1',
      ...nodePorts.map((port, i) => `  server node${i + 1} 127.0.0.1:${port} check`),
      '',
    ].join('\n'),
  );
  const proxy = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(proxy);
  for (let i = 0; ; i += 1) {
    const ok = await fetch(`http://127.0.0.1:${proxyPort}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 100) throw new Error('haproxy did not come up');
    await new Promise((r) => setTimeout(r, 100));
  }

  const users = await Promise.all(
    DESK.map(async (member) => {
      const client = new Client({ name: member.id, version: '1.0.0' });
      const authProvider = new ClientCredentialsProvider({
        clientId: member.id,
        clientSecret: member.secret,
        scope: SCOPE,
        expectedIssuer: idp.issuer,
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider }));
      return { member, client };
    }),
  );

  // Start on a window boundary, so that windows are whole.
  await new Promise((r) => setTimeout(r, WINDOW_MS - (Date.now() % WINDOW_MS) + 20));
  const sentFrom = sim.api.requests.length;
  const began = Date.now();
  const expectedMs = ((DESK.length * CALLS_PER_USER) / PER_WINDOW) * WINDOW_MS;
  const events = [];
  const faults = !withFaults
    ? []
    : [
        setTimeout(() => {
          events.push({ what: 'node2 killed', at: Date.now() });
          void kill(nodes[1]);
        }, expectedMs * 0.35),
        setTimeout(() => {
          events.push({ what: 'redis killed', at: Date.now() });
          void kill(redis).then(async () => {
            await new Promise((r) => setTimeout(r, 1000));
            redis = await startRedis(redisPort);
            events.push({ what: 'redis back', at: Date.now() });
          });
        }, expectedMs * 0.65),
      ];

  const records = [];
  await Promise.all(
    users.map(async ({ member, client }, u) => {
      let next = 0;
      const worker = async () => {
        for (;;) {
          const i = next++;
          if (i >= CALLS_PER_USER) return;
          // A trading day of its own per call: no two calls share an answer (cache or request).
          const day = tradingDay(u * CALLS_PER_USER + i);
          const args = { from: day, to: day };
          const at = Date.now();
          let outcome;
          try {
            const result = await client.callTool({ name: 'market_total_options_volume', arguments: args });
            outcome = result.isError ? (result.structuredContent?.error?.code ?? 'TOOL_ERROR') : 'ok';
          } catch (error) {
            outcome = `transport: ${String(error?.message ?? error).slice(0, 60)}`;
          }
          records.push({ user: member.id, at, doneAt: Date.now(), outcome });
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY_PER_USER }, worker));
    }),
  );
  for (const timer of faults) clearTimeout(timer);
  const elapsedMs = Date.now() - began;

  // Figures.
  const upstream = sim.api.requests.slice(sentFrom).filter((r) => r.path.includes('/total-options-volume'));
  const refused429 = upstream.filter((r) => r.status === 429).length;
  const perWindow = new Map();
  for (const r of upstream) {
    if (r.status === 429) continue;
    const w = Math.floor(r.at / WINDOW_MS);
    perWindow.set(w, (perWindow.get(w) ?? 0) + 1);
  }
  const windows = [...perWindow.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  const full = windows.slice(0, -1);
  const answered = records.filter((r) => r.outcome === 'ok').length;
  const failures = {};
  for (const r of records) if (r.outcome !== 'ok') failures[r.outcome] = (failures[r.outcome] ?? 0) + 1;
  // Shares in each window that every user was busy throughout (none had finished by its end).
  const lastDone = DESK.map((m) => Math.max(...records.filter((r) => r.user === m.id).map((r) => r.doneAt)));
  const busyWindows = [];
  for (let w = Math.floor(began / WINDOW_MS); (w + 1) * WINDOW_MS <= Math.min(...lastDone); w += 1) {
    const inWindow = (r) => r.outcome === 'ok' && r.doneAt >= w * WINDOW_MS && r.doneAt < (w + 1) * WINDOW_MS;
    busyWindows.push(DESK.map((m) => records.filter((r) => r.user === m.id && inWindow(r)).length));
  }
  const spreadOf = (shares) => {
    const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
    return mean > 0 ? (100 * (Math.max(...shares) - Math.min(...shares))) / mean : 100;
  };
  const spreadPct = busyWindows.length ? Math.max(...busyWindows.map(spreadOf)) : null;
  const fullUsedPct = full.map((n) => (100 * n) / PER_WINDOW);
  const figures = {
    mode: reduced ? 'reduced' : 'full',
    windowMs: WINDOW_MS,
    calls: records.length,
    answered,
    failures,
    upstreamRequests: upstream.length,
    distinctUpstream: new Set(upstream.map((r) => `${r.path}?${r.query}`)).size,
    upstream429: refused429,
    upstream429Pct: upstream.length ? (100 * refused429) / upstream.length : 0,
    windows,
    minFullWindowUsedPct: fullUsedPct.length ? Math.min(...fullUsedPct) : null,
    sharesPerBusyWindow: busyWindows,
    shareSpreadPct: spreadPct,
    elapsedMs,
    events: events.map((e) => ({
      what: e.what,
      atMs: e.at - began,
      failedWithin2s: records.filter((r) => r.outcome !== 'ok' && r.doneAt >= e.at && r.doneAt <= e.at + 2000).length,
      slowestWithin2sMs: Math.max(0, ...records.filter((r) => r.at >= e.at - 500 && r.at <= e.at + 2000).map((r) => r.doneAt - r.at)),
    })),
  };
  log(
    `hosted: ${NODES} nodes behind HAProxy, Redis, ${DESK.length} users, ${PER_WINDOW}/${WINDOW_MS / 1000} s window, ${IN_FLIGHT} in flight, ${LATENCY_MS} ms upstream (${figures.mode})`,
  );
  log(`  calls answered        ${answered}/${records.length}   (floor: all${reduced ? '' : ', less those lost to the faults below'})`);
  log(
    `  upstream 429s         ${refused429}/${upstream.length} = ${figures.upstream429Pct.toFixed(2)} %   (floor: <= ${FLOORS.max429Pct} %)`,
  );
  log(
    `  requests per window   ${windows.join(' / ')}   min full window ${figures.minFullWindowUsedPct?.toFixed(1) ?? 'n/a'} %   (floor: >= ${FLOORS.windowUsedPct} %)`,
  );
  log(
    `  shares per busy window ${busyWindows.map((s) => s.join('/')).join('  ') || 'n/a'}   max spread ${spreadPct?.toFixed(1) ?? 'n/a'} % of the mean   (floor: <= ${FLOORS.maxShareSpreadPct} %)`,
  );
  if (Object.keys(failures).length) log(`  failures              ${JSON.stringify(failures)}`);
  for (const e of figures.events)
    log(
      `  ${e.what.padEnd(21)} at ${(e.atMs / 1000).toFixed(1)} s: ${e.failedWithin2s} calls failed within 2 s; slowest call around it ${e.slowestWithin2sMs} ms`,
    );
  if (asJson) log(JSON.stringify(figures));

  for (const { client } of users) await client.close().catch(() => undefined);
  await idp.close();
  await sim.close();
}

main()
  .catch((error) => {
    // fetch's "fetch failed" keeps the reason (refused, reset, which address) in its cause.
    process.stderr.write(
      `hosted bench failed: ${error?.stack ?? error}${error?.cause ? `\ncause: ${error.cause?.stack ?? error.cause}` : ''}\n`,
    );
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const child of children) await kill(child);
    // A failed run leaves the simulator and the identity provider listening: end here rather
    // than hang until whoever ran it gives up.
    if (process.exitCode) process.exit();
  });
