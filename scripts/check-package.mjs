#!/usr/bin/env node
// Proves that an installed package or an unpacked MCPB bundle runs on what it ships, in
// each of its modes: --demo; a key and base URL (the package's own `simulator` command as
// the upstream); the same with MARKET_DATA_REDIS_URL on a throwaway redis-server, where
// the Redis client must load from the bundle and really share the account through Redis.
// Each mode lists the tools and calls one. Exits non-zero on the first mode that fails.
// Usage: node scripts/check-package.mjs <command> [args...]   e.g. prefix/bin/market-data-mcp
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [command, ...prefixArgs] = process.argv.slice(2);
if (!command) throw new Error('usage: check-package.mjs <command> [args...]');
const cacheDir = mkdtempSync(join(tmpdir(), 'mdmcp-check-'));
const children = [];

/** Lists the tools and calls one; throws unless the dataset tools are there and it answered. */
async function session(label, args, env) {
  const client = new Client({ name: 'check-package', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command,
      args: [...prefixArgs, ...args],
      // Only what the mode needs: nothing from the developer's shell leaks into the check.
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        MARKET_DATA_LOG_LEVEL: 'warn',
        MARKET_DATA_CACHE_DIR: cacheDir,
        ...env,
      },
      stderr: 'inherit',
    }),
  );
  try {
    const { tools } = await client.listTools();
    const call = await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', limit: 1 } });
    const text = JSON.stringify(call.content);
    if (tools.length < 23 || call.isError || !text.includes('king_strike'))
      throw new Error(`${label}: ${tools.length} tools; the call gave ${text.slice(0, 300)}`);
    process.stderr.write(`${label}: ${tools.length} tools, derived_dealer_gex_history answered\n`);
  } finally {
    await client.close();
  }
}

/** Starts a child and resolves with its first stderr line matching `ready`. */
function startChild(file, args, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${file} did not start: ${seen}`)), 15_000);
    const watch = (chunk) => {
      seen += chunk.toString();
      const match = ready.exec(seen);
      if (!match) return;
      clearTimeout(timer);
      resolve(match);
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}): ${seen}`)));
  });
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Keys in the Redis database, asked over RESP: more than none once a call went through it. */
function redisKeyCount(port) {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('*1\r\n$6\r\nDBSIZE\r\n'));
    socket.once('data', (data) => {
      socket.end();
      const match = /^:(\d+)/.exec(data.toString());
      if (match) resolve(Number(match[1]));
      else reject(new Error(`DBSIZE answered ${data.toString()}`));
    });
    socket.once('error', reject);
  });
}

try {
  await session('demo', ['--demo'], {});

  const [, url] = await startChild(
    command,
    [...prefixArgs, 'simulator', '--port', String(await freePort())],
    /listening on (http:\/\/\S+)/,
  );
  const upstream = { MARKET_DATA_BASE_URL: url, MARKET_DATA_API_KEY: 'sim-live-key' };
  await session('key and base URL', [], upstream);

  const redisPort = await freePort();
  await startChild(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    /Ready to accept/,
  );
  // A cache folder of its own: the call must go upstream, through the Redis gate, not the disk copy.
  await session('key, base URL and Redis', [], { ...upstream, MARKET_DATA_REDIS_URL: `redis://127.0.0.1:${redisPort}` });
  const keys = await redisKeyCount(redisPort);
  if (keys === 0) throw new Error('key, base URL and Redis: the server answered without writing anything to Redis');
  process.stderr.write(`key, base URL and Redis: ${keys} keys in Redis after the call\n`);
} finally {
  for (const child of children) child.kill();
  rmSync(cacheDir, { recursive: true, force: true });
}
