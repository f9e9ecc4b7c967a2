#!/usr/bin/env node
// What one small tool call costs, over stdio as a host sees it, beside the floor: a bare
// SDK server with one echo tool. Each case is a server process; every round spawns each
// case in turn (rotated, interleaved), warms it up, then times `calls` calls one after
// another (the client's round trip) and reads the server's CPU time (/proc) over them.
// Each round prints the load average and every case's p50 beside the same round's floor;
// the summary gives the median of those per-round ratios, the p50 and the server CPU a call.
//
// Cases: the floor's echo; a thin proxy, the least any server answering this call pays (the
// bare SDK server fetching the same page with node:http, parsing it and returning it as text
// and structuredContent, checking nothing); market-data-mcp with each call a cache miss (distinct
// arguments: looked up, sent, stored) and with the cache off, both against a local
// upstream answering a small page (30 rows, about 10 kB) from memory; `--cached`, the
// same call answered from the cache; `--default-heap`, the cache miss with V8's own heap
// sizing (MARKET_DATA_V8_DEFAULT_HEAP=1, src/heap-policy.ts), to show what the memory policy
// costs a call. With baselines (dist/cli.js of other builds) their cache-miss cases join
// the same rounds.
//
// Usage: node bench/call-cost.mjs [rounds=9] [calls=300] [baseline-cli.js...] [--cached] [--default-heap]
//        (npm run build first). Add --cpu-prof-dir=DIR to write a CPU profile of every
//        market-data-mcp case (node --cpu-prof) for a look at where the time goes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cli, ECHO, SMALL_PAGE, startUpstream, TOOL, writeReferenceServers } from './small-call.mjs';

const args = process.argv.slice(2);
const positional = args.filter((a) => !a.startsWith('--'));
const rounds = Number(positional[0] ?? 9);
const calls = Math.min(440, Number(positional[1] ?? 300));
const baselines = positional.slice(2);
const withCached = args.includes('--cached');
const withDefaultHeap = args.includes('--default-heap');
const profileDir = args.find((a) => a.startsWith('--cpu-prof-dir='))?.split('=')[1];
const WARM_UP = 100;
const TICKS_PER_S = 100; // USER_HZ on Linux

/** utime + stime of a process in ms (Linux /proc), or NaN elsewhere. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
  } catch {
    return Number.NaN;
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const dir = mkdtempSync(join(tmpdir(), 'mdmcp-bench-'));
const { bare, thin, remove: removeReferenceServers } = writeReferenceServers();

/** One server process: warmed up, then `calls` calls timed one after another. */
async function measure(c, round) {
  const profile =
    profileDir && c.profile ? [`--cpu-prof`, `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${c.key}-${round}.cpuprofile`] : [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...profile, ...c.args],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MARKET_DATA_LOG_LEVEL: 'warn', ...c.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-call-cost', version: '1.0.0' });
  await client.connect(transport);
  try {
    for (let i = 0; i < WARM_UP; i += 1) await call(client, c, i, true);
    const pid = transport.pid;
    const cpuBefore = cpuMs(pid);
    const times = [];
    for (let i = 0; i < calls; i += 1) {
      const started = process.hrtime.bigint();
      await call(client, c, i, false);
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    return { p50: median(times), cpuPerCall: (cpuMs(pid) - cpuBefore) / calls };
  } finally {
    await client.close();
  }
}

async function call(client, c, i, warmUp) {
  const result = await client.callTool(c.request(i, warmUp));
  if (result.isError) throw new Error(`${c.label}: ${JSON.stringify(result.content).slice(0, 300)}`);
}

const upstream = await startUpstream();
try {
  const env = { MARKET_DATA_BASE_URL: upstream.url, MARKET_DATA_API_KEY: 'bench-key', MARKET_DATA_CACHE_DIR: join(dir, 'cache') };
  // Distinct arguments each call, so that each one is a cache miss: the warm-up's apart from the measured ones.
  const miss = (i, warmUp) => ({ name: TOOL, arguments: { limit: warmUp ? 500 - (i % 30) : 30 + i } });
  const cases = [
    { key: 'floor', label: 'bare SDK server, echo (floor)', args: [bare], request: () => ECHO },
    {
      key: 'thin',
      label: 'thin proxy (fetch, parse, return)',
      args: [thin],
      env,
      request: () => SMALL_PAGE,
    },
    { key: 'miss', label: 'market-data-mcp, cache miss', args: [cli], env, request: miss, profile: true },
    {
      key: 'off',
      label: 'market-data-mcp, cache off',
      args: [cli],
      env: { ...env, MARKET_DATA_CACHE_ENTRIES: '0' },
      request: () => SMALL_PAGE,
      profile: true,
    },
  ];
  if (withCached)
    cases.push({
      key: 'hit',
      label: 'market-data-mcp, cache hit',
      args: [cli],
      env,
      request: () => SMALL_PAGE,
      profile: true,
    });
  if (withDefaultHeap)
    cases.push({
      key: 'heap',
      label: 'market-data-mcp, miss, V8 default heap',
      args: [cli],
      env: { ...env, MARKET_DATA_V8_DEFAULT_HEAP: '1' },
      request: miss,
    });
  for (const [k, baseline] of baselines.entries())
    cases.push({ key: `baseline${k + 1}`, label: `baseline ${k + 1}, cache miss`, args: [baseline], env, request: miss });
  for (const c of cases) Object.assign(c, { p50: [], ratio: [], cpu: [] });
  console.log(
    `node ${process.version}; ${cpus().length} cores; ${calls} calls a case a round after ${WARM_UP} to warm up; upstream page ${upstream.bytes} bytes`,
  );
  for (let round = 0; round < rounds; round += 1) {
    const before = load();
    const results = new Map();
    for (let k = 0; k < cases.length; k += 1) {
      const c = cases[(k + round) % cases.length];
      results.set(c, await measure(c, round));
    }
    const floor = results.get(cases[0]);
    for (const [c, r] of results) {
      c.p50.push(r.p50);
      c.ratio.push(r.p50 / floor.p50);
      c.cpu.push(r.cpuPerCall);
    }
    console.log(
      `round ${round + 1}: load ${before}; floor p50 ${floor.p50.toFixed(3)} ms; ` +
        cases
          .slice(1)
          .map((c) => `${c.key} ${results.get(c).p50.toFixed(3)} ms x${(results.get(c).p50 / floor.p50).toFixed(2)}`)
          .join('  '),
    );
  }
  console.log(
    `medians over ${rounds} interleaved rounds (ratio: the median of each round's p50 over that round's floor); load now ${load()}`,
  );
  for (const c of cases)
    console.log(
      `${c.label.padEnd(36)} p50 ${median(c.p50).toFixed(3).padStart(6)} ms  x${median(c.ratio).toFixed(2)} (rounds ${Math.min(...c.ratio).toFixed(2)}-${Math.max(...c.ratio).toFixed(2)})  server CPU ${median(c.cpu).toFixed(3)} ms a call`,
    );
} finally {
  await upstream.close();
  removeReferenceServers();
  rmSync(dir, { recursive: true, force: true });
}
