#!/usr/bin/env node
// Start-up time: from spawning a server to its answer to tools/list, over stdio.
// Compares market-data-mcp (demo; against an upstream with a cold and a warm openapi.json
// disk copy; upstream down) with a bare SDK server of one tool as the floor.
// Usage: node bench/startup.mjs [runs]   (build first: npm run build)
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../dist/simulator/server.js';

const runs = Number(process.argv[2] ?? 7);
const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/cli.js');

function timeToToolsList(args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, MARKET_DATA_LOG_LEVEL: 'silent', ...env },
      stdio: ['pipe', 'pipe', 'ignore'],
      cwd: root,
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('timeout'));
    }, 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('"id":2')) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        clearTimeout(timer);
        const tools = (out.match(/"name":"[a-z_]+","title"/g) ?? []).length;
        child.kill();
        resolve({ ms, tools });
      }
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

async function measure(label, args, env = {}, prepare = () => undefined) {
  const times = [];
  let tools = 0;
  for (let i = 0; i < runs; i += 1) {
    const extra = prepare(i) ?? {};
    const result = await timeToToolsList(args, { ...env, ...extra });
    times.push(result.ms);
    tools = result.tools;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(
    `${label.padEnd(52)} median ${median.toFixed(0).padStart(5)} ms   min ${times[0].toFixed(0).padStart(5)} ms   max ${times.at(-1).toFixed(0).padStart(5)} ms   tools ${tools}`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'mdmcp-bench-'));
const bare = join(root, 'dist', `.bench-bare-${process.pid}.mjs`);
writeFileSync(
  bare,
  `import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
serveStdio(() => { const s = new McpServer({ name: 'bare', version: '1.0.0' });
s.registerTool('echo', { title: 'Echo', description: 'Echo', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
return s; });\n`,
);
const sim = await startSimulator({ port: 0 });
try {
  console.log(`node ${process.version}, ${runs} runs each, spawn → tools/list answered`);
  await measure('bare SDK server, one tool (floor)', [bare]);
  await measure('market-data-mcp --demo (embedded simulator)', [cli, '--demo']);
  const upstream = { MARKET_DATA_BASE_URL: sim.url, MARKET_DATA_API_KEY: 'sim-live-key' };
  await measure('market-data-mcp, upstream up, cold (no disk copy)', [cli], upstream, (i) => ({
    MARKET_DATA_CACHE_DIR: join(dir, `cold-${i}`),
  }));
  await measure('market-data-mcp, upstream up, cached openapi.json', [cli], { ...upstream, MARKET_DATA_CACHE_DIR: join(dir, 'warm') });
  // An upstream that goes away after a first start left its document on disk.
  const gone = await startSimulator({ port: 0 });
  const goneEnv = { MARKET_DATA_BASE_URL: gone.url, MARKET_DATA_API_KEY: 'sim-live-key', MARKET_DATA_CACHE_DIR: join(dir, 'gone') };
  await timeToToolsList([cli], goneEnv);
  await gone.close();
  await measure('market-data-mcp, upstream unreachable, cached', [cli], goneEnv);
  await measure('market-data-mcp, upstream unreachable, no disk copy', [cli], { ...goneEnv, MARKET_DATA_CACHE_DIR: join(dir, 'none') });
} finally {
  await sim.close();
  rmSync(bare, { force: true });
  rmSync(dir, { recursive: true, force: true });
}
