#!/usr/bin/env node
// The README's host configurations, run with the real host CLIs: each block marked
// `<!-- host-check: NAME -->` in README.md is taken as written, its placeholders filled
// in (the clone's path, `node`, a local simulator as the API and its key), and applied in
// a temporary HOME; then the host itself says whether the server connects:
//   claude-code, claude-desktop-json   `claude mcp add` / `add-json`, then `claude mcp list`
//   gemini                             `gemini mcp add`, then `gemini mcp list`
//   cursor, vscode, codex-toml         the file written where the host reads it; mcporter lists the tools
//   codex                              `codex mcp add`, then mcporter lists the tools from ~/.codex
//   mcpb                               the unpacked bundle, started with the environment the mcpb
//                                      tooling gives it (demo only; key and URL only), answering a data call
// None of these CLIs needs a login to list MCP servers, so no network beyond npm is used.
// Usage: node scripts/host-check.mjs --bin <dir with claude, gemini, mcporter, codex>
//          [--global-bin <dir with market-data-mcp>] [--bundle <unpacked .mcpb folder>]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startSimulator } from '../dist/simulator/server.js';

const { values } = parseArgs({
  options: { bin: { type: 'string' }, 'global-bin': { type: 'string' }, bundle: { type: 'string' } },
});
const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'mdmcp-hosts-'));
const KEY = 'sim-live-key';
const MIN_TOOLS = 23;

/** The fenced block right after `<!-- host-check: name -->`. */
function block(name) {
  const match = new RegExp(`<!-- host-check: ${name} -->\\s*\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match?.[1]) throw new Error(`README has no block marked host-check: ${name}`);
  return match[1];
}

/** A fresh HOME and project folder, and the environment a user's shell would give the host. */
function place(name, apiUrl) {
  const home = join(scratch, name, 'home');
  const project = join(scratch, name, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const path = [values.bin, values['global-bin'], dirname(process.execPath), process.env.PATH].filter(Boolean).join(delimiter);
  const env = { HOME: home, PATH: path, LANG: 'C.UTF-8', NO_COLOR: '1', CI: '1' };
  const fill = (text) =>
    text
      .replaceAll('/absolute/path/to/market-data-mcp', root)
      .replaceAll('/usr/local/bin/node', process.execPath)
      .replaceAll('https://your-api-base-url', apiUrl)
      .replaceAll('your-key', KEY);
  return { home, project, env, fill };
}

function sh(where, command, timeoutMs = 120_000) {
  const result = spawnSync('bash', ['-c', command], { cwd: where.project, env: where.env, encoding: 'utf8', timeout: timeoutMs });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  if (result.status !== 0) throw new Error(`\`${command}\` exited ${result.status ?? result.signal}:\n${output.slice(-1500)}`);
  return output;
}

/** Lines of a README shell block, one command each. */
const commands = (text) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

function expectConnected(output, names, host) {
  for (const name of names) {
    const line = output.split('\n').find((l) => l.replace(/^\W+/, '').startsWith(`${name}:`));
    if (!line || !/Connected\s*$/.test(line)) throw new Error(`${host} does not report ${name} connected:\n${output.slice(-1500)}`);
  }
  return `${names.join(', ')} connected`;
}

function mcporterTools(where, server) {
  const output = sh(where, `mcporter list ${server} --json`);
  const summary = JSON.parse(output.slice(output.indexOf('{')));
  const entry = (summary.servers ?? [summary]).find((s) => s.name === server) ?? summary;
  const tools = entry.tools?.length ?? 0;
  if (entry.status !== 'ok' || tools < MIN_TOOLS)
    throw new Error(`mcporter: ${server} ${entry.status}, ${tools} tools\n${output.slice(0, 1500)}`);
  return `mcporter lists ${tools} tools (from ${entry.source?.importKind ?? 'config'})`;
}

async function bundleAnswers(settings, label) {
  if (!values.bundle) throw new Error('--bundle <unpacked folder> not given');
  const manifest = JSON.parse(readFileSync(join(values.bundle, 'manifest.json'), 'utf8'));
  const config = await getMcpConfigForManifest({
    manifest,
    extensionPath: values.bundle,
    systemDirs: {},
    userConfig: settings,
    pathSeparator: '/',
  });
  if (!config) throw new Error('the manifest gives no launch configuration for these settings');
  const where = place(`mcpb-${label}`, '');
  const client = new Client({ name: 'mcpb-check', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      // Claude Desktop runs `node` bundles on its own Node; here the one running this script.
      command: config.command === 'node' ? process.execPath : config.command,
      args: config.args ?? [],
      env: { HOME: where.home, PATH: where.env.PATH, ...config.env },
      stderr: 'ignore',
    }),
  );
  try {
    const { tools } = await client.listTools();
    const call = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 1 } });
    if (tools.length < MIN_TOOLS || call.isError)
      throw new Error(`${tools.length} tools; data call: ${JSON.stringify(call).slice(0, 400)}`);
    return `${tools.length} tools, shorts_short_screener answered`;
  } finally {
    await client.close();
  }
}

const sim = await startSimulator({ port: 0, materializationMs: 0 });
const checks = {
  'claude-code': () => {
    const where = place('claude-code', sim.url);
    const lines = commands(where.fill(block('claude-code')));
    for (const line of lines.filter((l) => l.startsWith('claude mcp add'))) sh(where, line);
    const names = lines.filter((l) => l.startsWith('claude mcp add')).map((l) => l.split(/\s+/)[3]);
    return expectConnected(sh(where, 'claude mcp list'), names, 'claude mcp list');
  },
  'claude-desktop-json': () => {
    const where = place('claude-desktop-json', sim.url);
    const server = JSON.parse(where.fill(block('claude-desktop-json'))).mcpServers['market-data'];
    sh(where, `claude mcp add-json market-data '${JSON.stringify(server)}'`);
    return expectConnected(sh(where, 'claude mcp list'), ['market-data'], 'claude mcp list');
  },
  gemini: () => {
    const where = place('gemini', sim.url);
    const lines = commands(where.fill(block('gemini')));
    for (const line of lines.filter((l) => l.startsWith('gemini mcp add'))) sh(where, line);
    // What accepting Gemini CLI's trust prompt for this folder writes.
    writeFileSync(join(where.home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [where.project]: 'TRUST_FOLDER' }));
    const names = ['market-data', 'market-data-demo'];
    return expectConnected(sh(where, 'gemini mcp list'), names, 'gemini mcp list');
  },
  cursor: () => {
    const where = place('cursor', sim.url);
    mkdirSync(join(where.home, '.cursor'), { recursive: true });
    writeFileSync(join(where.home, '.cursor', 'mcp.json'), where.fill(block('cursor')));
    return mcporterTools(where, 'market-data');
  },
  vscode: () => {
    const where = place('vscode', sim.url);
    mkdirSync(join(where.project, '.vscode'), { recursive: true });
    writeFileSync(join(where.project, '.vscode', 'mcp.json'), where.fill(block('vscode')));
    return mcporterTools(where, 'market-data');
  },
  codex: () => {
    const where = place('codex', sim.url);
    for (const line of commands(where.fill(block('codex')))) sh(where, line);
    return mcporterTools(where, 'market-data');
  },
  'codex-toml': () => {
    const where = place('codex-toml', sim.url);
    mkdirSync(join(where.home, '.codex'), { recursive: true });
    writeFileSync(join(where.home, '.codex', 'config.toml'), where.fill(block('codex-toml')));
    return mcporterTools(where, 'market-data');
  },
  'mcpb demo only': () => bundleAnswers({ demo: true }, 'demo'),
  'mcpb key and URL only': () => bundleAnswers({ api_key: KEY, base_url: sim.url }, 'key-url'),
};

let failed = 0;
try {
  for (const [name, check] of Object.entries(checks)) {
    try {
      console.log(`ok    ${name.padEnd(24)} ${await check()}`);
    } catch (error) {
      failed += 1;
      console.log(`FAIL  ${name.padEnd(24)} ${error instanceof Error ? error.message : String(error)}`);
    }
  }
} finally {
  await sim.close();
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed === 0 ? 0 : 1);
