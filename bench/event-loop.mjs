#!/usr/bin/env node
// How long one tool call over a huge upstream page holds the server's event loop: the built
// binary over stdio against a fake upstream that answers each shape of the new-user trial
// (issue 19), while the client sends `ping` back to back. Prints, per shape, the slowest
// ping during the call beside the floor: one JSON.parse of the same body in this process
// (best of three), i.e. what a server that parsed the page in one go could not go below.
// Figures depend on the machine and its load: compare the ratio, and measure on a quiet one.
// Usage: node bench/event-loop.mjs [--small] [--only NAME] [--cli PATH]   (build first: npm run build)
//   --only: the shapes whose name contains NAME; --cli: another build's cli.js (a baseline copy of dist/).
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { buildOpenApiDocument, DATASETS } from '../dist/catalog/index.js';

const small = process.argv.includes('--small');
const scale = small ? 0.01 : 1;
const option = (name) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const only = option('--only');
const cli = option('--cli') ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const TOOL = 'shorts_short_screener';

const realRows = (n) =>
  JSON.stringify({
    data: Array.from({ length: n }, (_, i) => ({
      ticker: 'AAPL',
      price_usd: 283.1 + (i % 7),
      size: 100 + i,
      venue: 'NYSE',
      executed_at: '2026-11-23T15:59:59.800-05:00',
      session_date_et: '2026-11-23',
    })),
    _meta: { request_id: 'bench', next_cursor: null },
  });
const n = (count) => Math.max(1, Math.round(count * scale));
/** The trial's shapes, each under the default 8 MiB body cap. */
const SHAPES = [
  ['100,000 empty rows', () => `{"data":[${'{},'.repeat(n(100_000) - 1)}{}]}`],
  ['1,000,000 empty rows', () => `{"data":[${'{},'.repeat(n(1_000_000) - 1)}{}]}`],
  ['2,500,000 empty rows', () => `{"data":[${'{},'.repeat(n(2_500_000) - 1)}{}]}`],
  ['3,000,000 numbers', () => `{"data":[${'1,'.repeat(n(3_000_000) - 1)}1]}`],
  [
    'one row of 200,000 fields',
    () => JSON.stringify({ data: [Object.fromEntries(Array.from({ length: n(200_000) }, (_, i) => [`f${i}`, i]))] }),
  ],
  ['50,000 ordinary rows', () => realRows(n(50_000))],
  ['10,000 ordinary rows', () => realRows(n(10_000))],
];

const bodies = new Map();
const upstream = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://bench');
  const headers = { 'content-type': 'application/json', 'x-ratelimit-limit': '100000', 'x-ratelimit-remaining': '99999' };
  res.writeHead(200, headers);
  if (url.pathname === '/v1/openapi.json') res.end(JSON.stringify(buildOpenApiDocument(DATASETS)));
  else res.end(bodies.get(url.searchParams.get('limit')) ?? '{"data":[{"ticker":"AAPL"}]}');
});
await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${upstream.address().port}`;

const transport = new StdioClientTransport({
  command: process.execPath,
  // e.g. BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the server.
  args: [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), cli],
  env: {
    ...process.env,
    MARKET_DATA_API_KEY: 'bench-key-0123456789',
    MARKET_DATA_BASE_URL: baseUrl,
    MARKET_DATA_CACHE_DIR: mkdtempSync(join(tmpdir(), 'event-loop-bench-')),
    MARKET_DATA_DEADLINE_MS: '120000',
  },
  stderr: 'ignore',
});
const client = new Client({ name: 'event-loop-bench', version: '1' });
await client.connect(transport);
await client.callTool({ name: TOOL, arguments: { limit: 100 } });

function parseFloorMs(text) {
  let best = Infinity;
  for (let round = 0; round < 3; round += 1) {
    const started = performance.now();
    JSON.parse(text);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

console.log(
  `Node ${process.version}; load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
console.log(`shape | body MB | slowest ping ms | floor: one JSON.parse ms | ratio | call ms${small ? '   (--small: 1% sizes)' : ''}`);
for (const [index, [name, make]] of SHAPES.entries()) {
  if (only && !name.includes(only)) continue;
  const body = make();
  const limit = String(index + 1);
  bodies.set(limit, body);
  const floor = parseFloorMs(body);
  let settled = false;
  let slowest = 0;
  const started = performance.now();
  const call = client.callTool({ name: TOOL, arguments: { limit: index + 1 } }, undefined, { timeout: 180_000 }).finally(() => {
    settled = true;
  });
  while (!settled) {
    const sent = performance.now();
    await client.ping();
    slowest = Math.max(slowest, performance.now() - sent);
  }
  const result = await call;
  const took = performance.now() - started;
  const error = result.isError ? ' (error)' : '';
  console.log(
    `${name} | ${(body.length / 1e6).toFixed(1)} | ${slowest.toFixed(0)} | ${floor.toFixed(0)} | ${(slowest / floor).toFixed(2)} | ${took.toFixed(0)}${error} | load ${loadavg()[0].toFixed(2)}`,
  );
}
await client.close();
upstream.close();
