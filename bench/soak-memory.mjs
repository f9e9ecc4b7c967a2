#!/usr/bin/env node
// Resident memory after load, over stdio, beside the floor: a bare SDK server with one
// tool answering the same number of calls. Each case spawns a server, makes N tool calls
// (`concurrency` at a time) against the simulator, polls its RSS throughout (peak), then
// reads it again once idle (after load). Cases run in turn within each round
// (interleaved), and each round prints the machine's load average beside its figures,
// so a busy shared machine shows. Medians over rounds with their ratio to the floor.
// Usage: node bench/soak-memory.mjs [--mix agent|big-pages] [calls] [rounds] [concurrency] [idle-ms] [baseline-cli.js]
//   (build first: npm run build). The three figures of issue 22:
//   node bench/soak-memory.mjs 5000 5 8                  a 5,000-call soak (after load)
//   node bench/soak-memory.mjs 500 5 500                 500 concurrent calls (peak)
//   node bench/soak-memory.mjs --mix big-pages 60 5 4    10,000-row pages (peak)
// With a baseline (dist/cli.js of another build), its cache-on case joins the same rounds.
// "V8 default heap" is this build without its heap policy (src/heap-policy.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { clearInterval, setInterval } from 'node:timers';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { DATASETS } from '../dist/catalog/index.js';
import { startSimulator } from '../dist/simulator/server.js';
import { writeFloorServer } from './floor-server.mjs';

const mixAt = process.argv.indexOf('--mix');
const mix = mixAt >= 0 ? process.argv[mixAt + 1] : 'agent';
const positional = mixAt >= 0 ? process.argv.slice(2).filter((_, k) => k !== mixAt - 2 && k !== mixAt - 1) : process.argv.slice(2);
const calls = Number(positional[0] ?? 5000);
const rounds = Number(positional[1] ?? 3);
const concurrency = Number(positional[2] ?? 8);
const idleMs = Number(positional[3] ?? 3000);
const baseline = positional[4];
const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli.js');

/** Resident memory of a process in MiB (Linux /proc), or NaN elsewhere. */
function rssMiB(pid) {
  try {
    const kib = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? Number(kib) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** A mix like an agent's: large pages, distinct arguments (so the cache fills), paging, dealer data. */
function marketCall(i) {
  const limit = 1 + ((i * 37) % 1000);
  switch (i % 6) {
    case 0:
      return { name: 'shorts_short_screener', arguments: { limit } };
    case 1:
      return { name: 'market_oi_change', arguments: { limit: 1 + ((i * 53) % 2000) } };
    case 2:
      return { name: 'derived_dealer_gex_history', arguments: { ticker: ['SPY', 'QQQ', 'AAPL', 'NVDA'][i % 4], limit: 1 + (i % 60) } };
    case 3:
      return { name: 'congress_recent_trades', arguments: { limit: 1 + ((i * 37) % 500) } };
    case 4:
      return { name: 'shorts_short_screener', arguments: { limit, fields: ['ticker', 'short_float_pct'] } };
    default:
      return { name: 'api_status', arguments: {} };
  }
}

/** The ticker directory at 9,001 to 10,000 rows, from an upstream that allows them (below), too large to cache. */
function bigPageCall(i) {
  return { name: 'stocks_ticker_exchanges', arguments: { limit: 10_000 - (i % 1000) } };
}

if (mix !== 'agent' && mix !== 'big-pages') throw new Error(`--mix is agent or big-pages, not ${mix}`);
const callOf = mix === 'big-pages' ? bigPageCall : marketCall;

const echoCall = (i) => ({ name: 'echo', arguments: { text: `call ${i}` } });

/** Spawns a server, makes `calls` tool calls, and reports peak RSS and RSS once idle after them. */
function soak(args, env, callOf) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, MARKET_DATA_LOG_LEVEL: 'silent', ...env },
      stdio: ['pipe', 'pipe', 'ignore'],
      cwd: root,
    });
    let peak = 0;
    const started = Date.now();
    const poll = setInterval(() => (peak = Math.max(peak, rssMiB(child.pid) || 0)), 50);
    const timer = setTimeout(() => {
      clearInterval(poll);
      child.kill();
      reject(new Error(`timeout: ${args.join(' ')}`));
    }, 30 * 60_000);
    const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
    let buffered = '';
    let sent = 0;
    let answered = 0;
    let errors = 0;
    const next = () => {
      if (sent >= calls) return;
      sent += 1;
      send({ jsonrpc: '2.0', id: 100 + sent, method: 'tools/call', params: callOf(sent) });
    };
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const message = JSON.parse(line);
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          for (let k = 0; k < concurrency; k += 1) next();
        } else if (typeof message.id === 'number' && message.id > 100) {
          answered += 1;
          if (message.error || message.result?.isError) {
            errors += 1;
            if (process.env.SOAK_SHOW_ERRORS) process.stderr.write(`${line.slice(0, 300)}\n`);
          }
          if (answered < calls) next();
          else {
            const seconds = (Date.now() - started) / 1000;
            setTimeout(() => {
              const idle = rssMiB(child.pid);
              clearInterval(poll);
              clearTimeout(timer);
              child.kill();
              resolve({ peak, idle, errors, seconds });
            }, idleMs);
          }
        }
      }
    });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    });
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/**
 * The catalog keeps the ticker directory's `limit` within the API's 256 KiB ceiling (3,000); an
 * upstream without that ceiling states a larger maximum in its document, which the server follows.
 */
function tenThousandRows() {
  const directory = DATASETS.find((d) => d.path === '/v1/stocks/ticker-exchanges');
  if (!directory) throw new Error('the catalog has no ticker directory');
  return { ...directory, query: { ...directory.query, limit: z.number().int().min(1).max(10_000).default(500).optional() } };
}

const dir = mkdtempSync(join(tmpdir(), 'mdmcp-soak-'));
const { path: bare, remove: removeFloor } = writeFloorServer('bare-soak');
// No rate window to speak of and no 202s: the figures are the server's memory, not its queue.
const sim = await startSimulator({
  port: 0,
  materializationMs: 0,
  limits: { perWindow: 1_000_000, perIpPerWindow: 1_000_000, inFlight: 1000 },
  // The API's 256 KiB ceiling refuses a 10,000-row page; an upstream that sends them is the case to measure.
  ...(mix === 'big-pages' ? { responseCeilingBytes: 64 * 1024 * 1024, extraDatasets: [tenThousandRows()] } : {}),
});
try {
  const upstream = { MARKET_DATA_BASE_URL: sim.url, MARKET_DATA_API_KEY: 'sim-live-key' };
  const cases = [
    { label: 'bare SDK server, one tool (floor)', args: [bare], callOf: echoCall },
    { label: 'market-data-mcp, cache on', args: [cli], env: { ...upstream, MARKET_DATA_CACHE_DIR: join(dir, 'on') }, callOf },
    {
      label: 'market-data-mcp, cache off',
      args: [cli],
      env: { ...upstream, MARKET_DATA_CACHE_DIR: join(dir, 'off'), MARKET_DATA_CACHE_ENTRIES: '0' },
      callOf,
    },
    {
      label: 'market-data-mcp, V8 default heap',
      args: [cli],
      env: { ...upstream, MARKET_DATA_CACHE_DIR: join(dir, 'v8'), MARKET_DATA_V8_DEFAULT_HEAP: '1' },
      callOf,
    },
  ];
  if (baseline) {
    cases.push({
      label: 'baseline, cache on',
      args: [baseline],
      env: { ...upstream, MARKET_DATA_CACHE_DIR: join(dir, 'base') },
      callOf,
    });
  }
  for (const c of cases) Object.assign(c, { peak: [], idle: [], seconds: [], errors: 0 });
  console.log(
    `node ${process.version}, ${mix} mix, ${calls} calls a case, ${concurrency} at a time, ${rounds} interleaved rounds; RSS ${idleMs} ms after the last answer`,
  );
  for (let round = 0; round < rounds; round += 1) {
    const figures = [];
    for (let k = 0; k < cases.length; k += 1) {
      const c = cases[(k + round) % cases.length];
      const result = await soak(c.args, c.env, c.callOf);
      c.peak.push(result.peak);
      c.idle.push(result.idle);
      c.seconds.push(result.seconds);
      c.errors += result.errors;
      figures.push(
        `${c === cases[0] ? 'floor' : c.label.replace('market-data-mcp, ', '')} ${result.idle.toFixed(0)}/${result.peak.toFixed(0)} MiB ${result.seconds.toFixed(0)} s`,
      );
    }
    console.log(
      `round ${round + 1}: load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; after/peak/time ${figures.join(', ')}`,
    );
  }
  const floorIdle = median(cases[0].idle);
  const floorPeak = median(cases[0].peak);
  for (const c of cases) {
    const idle = median(c.idle);
    const peak = median(c.peak);
    console.log(
      `${c.label.padEnd(36)} after load ${idle.toFixed(1).padStart(6)} MiB ${(idle / floorIdle).toFixed(2)}x   ` +
        `peak ${peak.toFixed(1).padStart(6)} MiB ${(peak / floorPeak).toFixed(2)}x   ` +
        `calls took ${median(c.seconds).toFixed(1).padStart(5)} s   error results ${c.errors}`,
    );
  }
} finally {
  await sim.close();
  removeFloor();
  rmSync(dir, { recursive: true, force: true });
}
