#!/usr/bin/env node
// A burst behind a slow first answer (issue 34), through the built binary over stdio: N
// calls at once against an upstream that allows 5 requests in flight and answers the first
// 5 in 600 ms and every other in 20 ms, in a large account's fixed window. Prints, per
// round and build, how many calls were served and how many refused (with the largest
// retry_after_seconds told), and the time beside the floor: what the slots allow (600 ms,
// then a wave of 5 every 20 ms), with the load average. Rounds alternate the builds.
// Usage: node bench/burst-pace.mjs [calls=500] [rounds=3] [baseline-cli.js]   (npm run build first)
import { Buffer } from 'node:buffer';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildOpenApiDocument, DATASETS } from '../dist/catalog/index.js';

const calls = Number(process.argv[2] ?? 500);
const rounds = Number(process.argv[3] ?? 3);
const baseline = process.argv[4];
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const IN_FLIGHT = 5;
const FIRST_MS = 600;
const THEN_MS = 20;
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/** The upstream: 5 in flight (IN_FLIGHT_EXCEEDED past them), the first 5 answers slow, the rest fast. */
async function startUpstream() {
  const document = JSON.stringify(buildOpenApiDocument(DATASETS));
  const page = JSON.stringify({ data: [{ date: '2026-11-20', calls: 123_456, puts: 98_765 }], _meta: { next_cursor: null } });
  const state = { inFlight: 0, most: 0, answered: 0 };
  const server = createServer((req, res) => {
    const headers = {
      'content-type': 'application/json',
      'x-ratelimit-limit': '100000',
      'x-ratelimit-remaining': '99999',
      // A fixed window, as a server names it, that no burst here outlasts.
      'x-ratelimit-reset': String(Math.floor(Date.now() / 600_000) * 600 + 600),
    };
    if (req.url?.startsWith('/v1/openapi.json')) {
      res.writeHead(200, headers);
      res.end(document);
      return;
    }
    state.inFlight += 1;
    state.most = Math.max(state.most, state.inFlight);
    res.once('close', () => (state.inFlight -= 1));
    if (state.inFlight > IN_FLIGHT) {
      const body = JSON.stringify({
        error: { code: 'IN_FLIGHT_EXCEEDED', tags: [], message: 'Too many in flight.', docs_url: 'https://x', request_id: null },
      });
      res.writeHead(429, { ...headers, 'retry-after': '1', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    state.answered += 1;
    setTimeout(
      () => {
        res.writeHead(200, headers);
        res.end(page);
      },
      state.answered <= IN_FLIGHT ? FIRST_MS : THEN_MS,
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    state,
    reset: () => Object.assign(state, { inFlight: 0, most: 0, answered: 0 }),
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}

async function burst(build, upstream) {
  const dir = mkdtempSync(join(tmpdir(), 'mdmcp-bench-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [build],
    env: {
      PATH: process.env.PATH ?? '',
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: 'bench-key-0123456789',
      MARKET_DATA_LOG_LEVEL: 'warn',
      MARKET_DATA_CACHE_DIR: dir,
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-burst-pace', version: '1.0.0' });
  await client.connect(transport);
  upstream.reset();
  const started = Date.now();
  const results = await Promise.all(
    Array.from({ length: calls }, (_, i) =>
      client.callTool({ name: 'market_total_options_volume', arguments: { limit: 1 + (i % 500) } }, undefined, { timeout: 120_000 }),
    ),
  );
  const elapsed = Date.now() - started;
  await client.close();
  rmSync(dir, { recursive: true, force: true });
  const refused = results
    .filter((r) => r.isError)
    .map((r) => Number(/"retry_after_seconds":\s*(\d+)/.exec(r.content?.[0]?.text ?? '')?.[1] ?? NaN));
  return { served: calls - refused.length, refused, elapsed, most: upstream.state.most };
}

const upstream = await startUpstream();
try {
  const floorMs = FIRST_MS + Math.max(0, Math.ceil(calls / IN_FLIGHT) - 1) * THEN_MS;
  console.log(
    `Node ${process.version}; ${calls} calls at once; upstream ${IN_FLIGHT} in flight, the first ${IN_FLIGHT} answers ${FIRST_MS} ms, then ${THEN_MS} ms; floor ${(floorMs / 1000).toFixed(2)} s (what the slots allow)`,
  );
  const builds = [['this build', cli], ...(baseline ? [['baseline', baseline]] : [])];
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, build] of round % 2 === 0 ? builds : [...builds].reverse()) {
      const before = load();
      const r = await burst(build, upstream);
      console.log(
        [
          `round ${round + 1} ${name.padEnd(10)}`,
          `served ${String(r.served).padStart(4)}`,
          `refused ${String(r.refused.length).padStart(4)} (retry_after_seconds max ${r.refused.length ? Math.max(...r.refused) : '-'})`,
          `time ${(r.elapsed / 1000).toFixed(2)} s vs floor ${(floorMs / 1000).toFixed(2)} s (x${(r.elapsed / floorMs).toFixed(2)})`,
          `most in flight upstream ${r.most}`,
          `load ${before}`,
        ].join('  |  '),
      );
    }
  }
} finally {
  await upstream.close();
}
