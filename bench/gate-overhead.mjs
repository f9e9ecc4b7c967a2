#!/usr/bin/env node
// What the account gate costs per call, beside what bottleneck's queue cost in its place,
// and the client's whole overhead per call against a local upstream (the simulator with
// its limits lifted), beside a bare node:http keep-alive GET of the same URL.
// Usage: node bench/gate-overhead.mjs   (build first: npm run build)
import { Writable } from 'node:stream';
import { Agent, get } from 'node:http';
import { loadavg } from 'node:os';
import { MarketDataClient } from '../dist/api/client.js';
import { InProcessAccountGate } from '../dist/api/gate/in-process-gate.js';
import { DATASETS } from '../dist/catalog/index.js';
import { ConfigSchema } from '../dist/config/config.js';
import { createLogger } from '../dist/log.js';
import { startSimulator } from '../dist/simulator/server.js';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

async function gateCost(n) {
  // A window large enough that only the gate's own work is timed.
  const gate = new InProcessAccountGate({ window: { limit: 1_000_000_000 } });
  const signal = new globalThis.AbortController().signal;
  const times = [];
  for (let i = 0; i < n; i += 1) {
    const start = process.hrtime.bigint();
    const permit = await gate.acquire({ free: true, deadline: Date.now() + 60_000, signal });
    permit.release({ status: 200 });
    times.push(ms(start));
  }
  await gate.close();
  return median(times);
}

async function bottleneckCost(n) {
  let Bottleneck;
  try {
    Bottleneck = (await import('bottleneck')).default;
  } catch {
    return undefined;
  }
  const limiter = new Bottleneck({ maxConcurrent: 5 });
  const times = [];
  for (let i = 0; i < n; i += 1) {
    const start = process.hrtime.bigint();
    await limiter.schedule(() => Promise.resolve());
    times.push(ms(start));
  }
  await limiter.stop();
  return median(times);
}

async function callOverhead(n) {
  const sim = await startSimulator({ materializationMs: 0, limits: { perWindow: 1_000_000, perIpPerWindow: 1_000_000 } });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const client = new MarketDataClient({
    config: ConfigSchema.parse({ apiKey: 'sim-live-key', baseUrl: sim.url, cacheEntries: 0 }),
    log: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })),
  });
  const dataset = DATASETS.find((d) => d.operationId === 'market.oi_change');
  const bare = [];
  const viaClient = [];
  for (let i = 0; i < n; i += 1) {
    let start = process.hrtime.bigint();
    await new Promise((resolve, reject) =>
      get(
        `${sim.url}/v1/market/oi-change?limit=${1 + (i % 50)}`,
        { agent, headers: { authorization: 'Bearer sim-live-key' } },
        (response) => response.resume().once('end', resolve).once('error', reject),
      ).once('error', reject),
    );
    bare.push(ms(start));
    start = process.hrtime.bigint();
    await client.dataset(dataset, undefined, { limit: 1 + (i % 50) });
    viaClient.push(ms(start));
  }
  await client.close();
  agent.destroy();
  await sim.close();
  return { bare: median(bare), viaClient: median(viaClient) };
}

console.log(
  `Node ${process.version}; medians; load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
const gate = await gateCost(5000);
console.log(`InProcessAccountGate acquire + release        ${(gate * 1000).toFixed(1).padStart(8)} µs per call`);
const bottleneck = await bottleneckCost(2000);
console.log(
  bottleneck === undefined
    ? 'bottleneck schedule (no-op job)                not installed (npm i --no-save bottleneck to compare)'
    : `bottleneck schedule (no-op job), 5 at once    ${(bottleneck * 1000).toFixed(1).padStart(8)} µs per call`,
);
const overhead = await callOverhead(400);
console.log(`bare node:http GET to the local simulator     ${overhead.bare.toFixed(2).padStart(8)} ms`);
console.log(
  `client.dataset(), same request, no cache      ${overhead.viaClient.toFixed(2).padStart(8)} ms  (overhead ${(overhead.viaClient - overhead.bare).toFixed(2)} ms)`,
);
