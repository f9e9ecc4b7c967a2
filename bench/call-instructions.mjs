#!/usr/bin/env node
// What one small tool call costs in machine instructions, which the machine's load does not
// change (bench/call-cost.mjs's times do): each case's server runs under valgrind's callgrind
// twice, once for `few` calls and once for `many`, and the difference of the two totals over
// the difference of the calls is what a call costs past start-up and warm-up. The cases are
// bench/call-cost.mjs's: the floor's echo, the thin proxy (the least a server answering this
// call pays) and market-data-mcp with the cache off, plus any baseline builds given.
//
// Usage: node bench/call-instructions.mjs [few=100] [many=400] [baseline-cli.js...]
//        (npm run build first; needs valgrind: apt-get install -y valgrind). Under callgrind a
//        server runs about 50x slower: the default takes about 4 minutes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cli, ECHO, SMALL_PAGE, startUpstream, writeReferenceServers } from './small-call.mjs';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const few = Number(positional[0] ?? 100);
const many = Number(positional[1] ?? 400);
const baselines = positional.slice(2);
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed (apt-get install -y valgrind)');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'mdmcp-callgrind-'));
const { bare, thin, remove } = writeReferenceServers();
const upstream = await startUpstream();

/** Instructions the server process ran (every thread) over start-up and `calls` calls, then closed. */
async function instructions(c, calls) {
  const out = join(dir, `${c.key}-${calls}.out`);
  const transport = new StdioClientTransport({
    command: 'valgrind',
    args: ['--tool=callgrind', `--callgrind-out-file=${out}`, process.execPath, c.script],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: 'bench-key',
      MARKET_DATA_CACHE_ENTRIES: '0',
      MARKET_DATA_CACHE_DIR: join(dir, 'cache'),
      MARKET_DATA_LOG_LEVEL: 'warn',
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-call-instructions', version: '1.0.0' });
  await client.connect(transport);
  for (let i = 0; i < calls; i += 1) {
    const result = await client.callTool(c.request);
    if (result.isError) throw new Error(`${c.label}: ${JSON.stringify(result.content).slice(0, 300)}`);
  }
  const exited = new Promise((resolve) => (transport.onclose = resolve));
  await client.close();
  await exited;
  // callgrind writes its file as the process ends; the wrapper's close may come first.
  for (let tries = 0; tries < 100 && !readdirSync(dir).some((f) => f.startsWith(`${c.key}-${calls}.out`)); tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${c.key}-${calls}.out`))
    .map((f) => Number(/^summary: (\d+)/m.exec(readFileSync(join(dir, f), 'utf8'))?.[1] ?? Number.NaN))
    .reduce((a, b) => a + b, 0);
}

const cases = [
  { key: 'floor', label: 'bare SDK server, echo (floor)', script: bare, request: ECHO },
  { key: 'thin', label: 'thin proxy (fetch, parse, return)', script: thin, request: SMALL_PAGE },
  { key: 'ours', label: 'market-data-mcp, cache off', script: cli, request: SMALL_PAGE },
  ...baselines.map((script, k) => ({ key: `baseline${k + 1}`, label: `baseline ${k + 1}, cache off`, script, request: SMALL_PAGE })),
];
try {
  console.log(`node ${process.version}; instructions a call = (run of ${many} calls - run of ${few}) / ${many - few}`);
  for (const c of cases) c.perCall = ((await instructions(c, many)) - (await instructions(c, few))) / (many - few);
  const floor = cases[0].perCall;
  const thinCase = cases[1].perCall;
  for (const c of cases)
    console.log(
      `${c.label.padEnd(36)} ${(c.perCall / 1e6).toFixed(2).padStart(6)} M instructions a call  x${(c.perCall / floor).toFixed(2)} the floor  x${(c.perCall / thinCase).toFixed(2)} the thin proxy`,
    );
} finally {
  await upstream.close();
  remove();
  rmSync(dir, { recursive: true, force: true });
}
