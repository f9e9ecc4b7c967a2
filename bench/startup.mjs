#!/usr/bin/env node
// Start-up time and idle memory, over stdio, as a host sees them: from spawning a server
// to its answer to tools/list, then its resident memory once idle. Every case is run in
// turn within each round (interleaved), so a busy shared machine slows all cases alike;
// medians are printed with their ratio to the floor, a bare SDK server with one tool, and
// beside it the median of each round's ratio to that round's floor.
// Usage: node bench/startup.mjs [rounds] [idle-ms] [baseline-cli.js]   (build first: npm run build)
// With a baseline (dist/cli.js of another build, e.g. the commit before a change), its
// --demo, cached and big-registry cases join the same rounds, for a before/after side by side.
// STARTUP_CASES=<regex> runs only the cases whose label matches (and the floor, always).
// Big registries: an upstream (bench/fake-upstream.mjs) lists 100 or 500 datasets beyond
// the catalog, started with and without a disk copy of its document; a third lists 100 whose
// every parameter differs (the import shares no conversion between them,
// src/registry/openapi/import.ts); a fourth lists 500 written with `$ref` as generators
// write them (shared parameters, enums, one answer model per dataset). Each figure is also given as peak RSS (VmHWM, at the
// answer) and as CPU time at the answer (user + system, which a busy machine inflates less
// than the time to answer), and the machine's 1-minute load average is read before every
// round and printed beside the figures: compare runs only at like loads.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../dist/simulator/server.js';
import { writeFloorServer } from './floor-server.mjs';
import { startFakeUpstream } from './fake-upstream.mjs';

const rounds = Number(process.argv[2] ?? 9);
const idleMs = Number(process.argv[3] ?? 2500);
const baseline = process.argv[4];
const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli.js');

/** Resident memory of a process in MiB (Linux /proc; VmHWM for its peak), or NaN elsewhere. */
function rssMiB(pid, field = 'VmRSS') {
  try {
    const kib = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib ? Number(kib) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU time a process has used (user and system), in ms, from Linux /proc (clock ticks of 10 ms); NaN elsewhere. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

function run(args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, MARKET_DATA_LOG_LEVEL: 'silent', ...env },
      stdio: ['pipe', 'pipe', 'ignore'],
      cwd: root,
    });
    let out = '';
    let answered = false;
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`timeout: ${args.join(' ')}`));
    }, 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (answered || !out.includes('"id":2')) return;
      answered = true;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const peak = rssMiB(child.pid, 'VmHWM');
      const cpu = cpuMs(child.pid);
      const tools = (out.match(/"name":"[a-z0-9_]+","title"/g) ?? []).length;
      // Idle: the first answer is out, background work after it (a catalog refresh) has had its time.
      setTimeout(() => {
        const mib = rssMiB(child.pid);
        clearTimeout(timer);
        // Once it has exited: a server stopped before its first start's disk copy was written
        // writes it as it stops, and the folder is removed when the bench ends.
        child.once('exit', () => resolve({ ms, mib, peak, tools, cpu }));
        child.kill();
      }, idleMs);
    });
    const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const dir = mkdtempSync(join(tmpdir(), 'mdmcp-bench-'));
const { path: bare, remove: removeFloor } = writeFloorServer('bare');
const sim = await startSimulator({ port: 0 });
const gone = await startSimulator({ port: 0 });
const big = {
  0: await startFakeUpstream({ datasets: 0 }),
  100: await startFakeUpstream({ datasets: 100 }),
  500: await startFakeUpstream({ datasets: 500 }),
  distinct: await startFakeUpstream({ datasets: 100, distinct: true }),
  refs: await startFakeUpstream({ datasets: 500, refs: true }),
};
try {
  const upstream = { MARKET_DATA_BASE_URL: sim.url, MARKET_DATA_API_KEY: 'sim-live-key' };
  const goneEnv = { MARKET_DATA_BASE_URL: gone.url, MARKET_DATA_API_KEY: 'sim-live-key' };
  const staticUpstream = { MARKET_DATA_BASE_URL: big[0].url, MARKET_DATA_API_KEY: 'sim-live-key' };
  const cases = [
    { label: 'bare SDK server, one tool (floor)', args: [bare] },
    { label: 'market-data-mcp --demo (embedded simulator)', args: [cli, '--demo'] },
    {
      label: 'market-data-mcp, upstream up, cached openapi.json',
      args: [cli],
      env: { ...upstream, MARKET_DATA_CACHE_DIR: join(dir, 'warm') },
    },
    { label: 'market-data-mcp, upstream up, cold (no disk copy)', args: [cli], env: upstream, fresh: 'cold' },
    // The simulator builds its document on every request (tens of ms here): an upstream that
    // serves it as a file shows the server's own cost of a first start.
    { label: 'market-data-mcp, static document, cold (no disk copy)', args: [cli], env: staticUpstream, fresh: 'static-cold' },
    { label: 'market-data-mcp, upstream unreachable, cached', args: [cli], env: { ...goneEnv, MARKET_DATA_CACHE_DIR: join(dir, 'gone') } },
    { label: 'market-data-mcp, upstream unreachable, no disk copy', args: [cli], env: goneEnv, fresh: 'none' },
  ];
  for (const size of [100, 500]) {
    const env = { MARKET_DATA_BASE_URL: big[size].url, MARKET_DATA_API_KEY: 'sim-live-key' };
    cases.push(
      {
        label: `market-data-mcp, ${size} upstream datasets, disk copy`,
        args: [cli],
        env: { ...env, MARKET_DATA_CACHE_DIR: join(dir, `big-${size}`) },
      },
      { label: `market-data-mcp, ${size} upstream datasets, no disk copy`, args: [cli], env, fresh: `big-${size}-cold` },
    );
  }
  cases.push({
    label: 'market-data-mcp, 100 distinct upstream datasets, no disk copy',
    args: [cli],
    env: { MARKET_DATA_BASE_URL: big.distinct.url, MARKET_DATA_API_KEY: 'sim-live-key' },
    fresh: 'distinct-cold',
  });
  const refs = { MARKET_DATA_BASE_URL: big.refs.url, MARKET_DATA_API_KEY: 'sim-live-key' };
  cases.push({ label: 'market-data-mcp, 500 upstream datasets by $ref, no disk copy', args: [cli], env: refs, fresh: 'refs-cold' });
  if (baseline) {
    const big100 = { MARKET_DATA_BASE_URL: big[100].url, MARKET_DATA_API_KEY: 'sim-live-key' };
    const big500 = { MARKET_DATA_BASE_URL: big[500].url, MARKET_DATA_API_KEY: 'sim-live-key' };
    cases.push(
      { label: 'baseline --demo', args: [baseline, '--demo'] },
      {
        label: 'baseline, upstream up, cached openapi.json',
        args: [baseline],
        env: { ...upstream, MARKET_DATA_CACHE_DIR: join(dir, 'base-warm') },
      },
      { label: 'baseline, upstream up, cold (no disk copy)', args: [baseline], env: upstream, fresh: 'base-cold' },
      {
        label: 'baseline, 100 upstream datasets, disk copy',
        args: [baseline],
        env: { ...big100, MARKET_DATA_CACHE_DIR: join(dir, 'base-big-100') },
      },
      { label: 'baseline, 100 upstream datasets, no disk copy', args: [baseline], env: big100, fresh: 'base-big-100-cold' },
      { label: 'baseline, 500 upstream datasets, no disk copy', args: [baseline], env: big500, fresh: 'base-big-500-cold' },
      { label: 'baseline, 500 upstream datasets by $ref, no disk copy', args: [baseline], env: refs, fresh: 'base-refs-cold' },
    );
  }
  const only = process.env['STARTUP_CASES'] ? new RegExp(process.env['STARTUP_CASES']) : undefined;
  if (only) cases.splice(1, cases.length, ...cases.slice(1).filter((c) => only.test(c.label)));
  // Leave a disk copy for the cached cases, then take the second upstream away.
  for (const c of cases) if (!c.fresh && c.env?.MARKET_DATA_CACHE_DIR) await run(c.args, c.env);
  // A second start from the disk copy records its import (src/registry/import-memo.ts), as a user's would.
  for (const c of cases) if (c.label.includes('upstream datasets, disk copy')) await run(c.args, c.env);
  await gone.close();

  const loads = [];
  for (const c of cases) Object.assign(c, { ms: [], mib: [], peak: [], cpu: [], tools: 0 });
  console.log(`cases: ${cases.map((c, k) => `[${k}] ${c.label}`).join('; ')}`);
  for (let round = 0; round < rounds; round += 1) {
    loads.push(loadavg()[0]);
    // Rotate the order too, so no case always runs right after the same neighbour.
    for (let k = 0; k < cases.length; k += 1) {
      const c = cases[(k + round) % cases.length];
      const env = c.fresh ? { ...c.env, MARKET_DATA_CACHE_DIR: join(dir, `${c.fresh}-${round}`) } : c.env;
      const result = await run(c.args, env);
      c.ms.push(result.ms);
      c.mib.push(result.mib);
      c.peak.push(result.peak);
      c.cpu.push(result.cpu);
      c.tools = result.tools;
    }
    // This round's time and peak of each case beside the same round's floor, with the load it ran at.
    const floor = cases[0];
    console.log(
      `round ${round + 1}: load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; floor ${floor.ms[round].toFixed(0)} ms ${floor.peak[round].toFixed(0)} MiB; time/peak vs floor ` +
        cases
          .slice(1)
          .map((c, k) => `[${k + 1}] ${(c.ms[round] / floor.ms[round]).toFixed(2)}/${(c.peak[round] / floor.peak[round]).toFixed(2)}`)
          .join(' '),
    );
  }
  const floorMs = median(cases[0].ms);
  const floorMib = median(cases[0].mib);
  const floorPeak = median(cases[0].peak);
  const floorCpu = median(cases[0].cpu);
  console.log(
    `node ${process.version}, ${rounds} interleaved rounds; spawn → tools/list answered; RSS ${idleMs} ms after it; peak RSS and CPU time (user + system, 10 ms ticks) at the answer`,
  );
  console.log(
    `load average (1 min) before each round: median ${median(loads).toFixed(1)}, min ${Math.min(...loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)} on ${cpus().length} cores`,
  );
  for (const [k, c] of cases.entries()) {
    const ms = median(c.ms);
    const mib = median(c.mib);
    const peak = median(c.peak);
    // The median of each round's time over the same round's floor: a load that changes between rounds moves it less.
    const perRound = median(c.ms.map((value, round) => value / cases[0].ms[round]));
    console.log(
      `[${k}] ${c.label.padEnd(58)} ${ms.toFixed(0).padStart(5)} ms  ${(ms / floorMs).toFixed(2)}x  (rounds ${perRound.toFixed(2)}x)   ` +
        `min ${Math.min(...c.ms)
          .toFixed(0)
          .padStart(5)}  max ${Math.max(...c.ms)
          .toFixed(0)
          .padStart(5)}   ` +
        `idle ${mib.toFixed(1).padStart(5)} MiB  ${(mib / floorMib).toFixed(2)}x   ` +
        `peak ${peak.toFixed(1).padStart(5)} MiB  ${(peak / floorPeak).toFixed(2)}x   ` +
        `cpu ${median(c.cpu).toFixed(0).padStart(4)} ms  ${(median(c.cpu) / floorCpu).toFixed(2)}x   tools ${c.tools}`,
    );
  }
} finally {
  await sim.close();
  await big[0].close();
  await big[100].close();
  await big[500].close();
  await big.distinct.close();
  await big.refs.close();
  removeFloor();
  rmSync(dir, { recursive: true, force: true });
}
