#!/usr/bin/env node
// The README's host configurations, run with the real host CLIs: each block marked
// `<!-- host-check: NAME -->` in README.md is taken as written, its placeholders filled
// in (the clone's path, `node`, a local simulator as the API and its key, a local --http
// server and its token, a local OAuth --http server), and applied in a temporary HOME;
// then the host itself says whether the server connects:
//   claude-code, claude-desktop-json   `claude mcp add` / `add-json`, then `claude mcp list`
//   gemini                             `gemini mcp add`, then `gemini mcp list`
//   cursor, vscode, codex-toml         the file written where the host reads it; mcporter lists the tools
//   codex                              `codex mcp add`, then mcporter lists the tools from ~/.codex
//   claude-code-http, gemini-http      the static token of --http as a header; the host's list says connected
//   cursor-http, vscode-http           the same from the JSON files (VS Code's prompt for the token filled in); mcporter lists the tools
//   mcp-remote                         a stdio-only host's JSON running mcp-remote with the header; mcporter lists the tools
//   codex-http                         `bearer_token_env_var` read by Codex (`codex mcp list`; Codex connects only in a session)
//   claude-code-oauth, codex-oauth     an OAuth --http server with a local OpenID provider: Claude Code says "Needs
//                                      authentication", Codex "not logged in" (signing in needs a browser)
//   mcpb                               the unpacked bundle, started with the environment the mcpb
//                                      tooling gives it (demo only; key and URL only), answering a data call
// None of these CLIs needs a login to list MCP servers, so no network beyond npm is used.
// Usage: node scripts/host-check.mjs --bin <dir with claude, gemini, mcporter, codex, mcp-remote>
//          [--global-bin <dir with market-data-mcp>] [--bundle <unpacked .mcpb folder>]
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
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
const HTTP_TOKEN = 'host-check-http-token-0123456789';
const MIN_TOOLS = 23;
const CLI = join(root, 'dist', 'cli.js');

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
  const env = { HOME: home, PATH: path, LANG: 'C.UTF-8', NO_COLOR: '1', CI: '1', MARKET_DATA_HTTP_TOKEN: HTTP_TOKEN };
  const fill = (text) =>
    text
      .replaceAll('http://127.0.0.1:3000/mcp', servers.http)
      .replaceAll('https://mcp.example.com/mcp', servers.oauth)
      .replaceAll('your-http-token', HTTP_TOKEN)
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

/** `--http --demo` of the built CLI on `port` (0: any), resolved with its /mcp URL once it listens. */
async function serveHttp(env, port = 0) {
  const child = spawn(process.execPath, [CLI, '--http', '--demo', '--port', String(port)], {
    env: { PATH: process.env.PATH, HOME: scratch, MARKET_DATA_CACHE_DIR: join(scratch, `cache-${port}`), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(`--http exited: ${stderr}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * An OpenID provider as a team's would be for the hosts' sign-in: authorization code with
 * PKCE, dynamic client registration (RFC 7591, which Claude Code, Codex and mcp-remote use
 * when given no client id), tokens for the server's URL (RFC 8707) with its scope. In a
 * process of its own: the checks wait on the host CLIs with spawnSync, which would stop an
 * in-process provider from answering them.
 */
const IDENTITY_PROVIDER = `
import { createServer } from 'node:http';
import Provider from 'oidc-provider';
const http = createServer();
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
const issuer = 'http://127.0.0.1:' + http.address().port;
const provider = new Provider(issuer, {
  scopes: ['openid', 'offline_access', 'market-data:read'],
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => ({ scope: 'market-data:read', audience: resource, accessTokenFormat: 'jwt' }),
    },
  },
});
http.on('request', provider.callback());
console.log('issuer ' + issuer);
`;

async function startIdentityProvider() {
  const child = spawn(process.execPath, ['--input-type=module', '-e', IDENTITY_PROVIDER], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  const issuer = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk.toString();
      const match = /issuer (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the identity provider exited ${code}`)));
  });
  return { issuer, stop: () => child.kill('SIGTERM') };
}

/** A server of Codex's config as `codex mcp list --json` reads it (on stdout; Codex warns on stderr). */
function codexEntry(where, name) {
  const result = spawnSync('codex', ['mcp', 'list', '--json'], { cwd: where.project, env: where.env, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`codex mcp list exited ${result.status ?? result.signal}: ${result.stderr.slice(-1500)}`);
  const entry = JSON.parse(result.stdout).find((e) => e.name === name);
  if (!entry) throw new Error(`codex mcp list has no ${name}:\n${result.stdout.slice(-1500)}`);
  return entry;
}

const sim = await startSimulator({ port: 0, materializationMs: 0 });
// The static token's --http, and an OAuth one: its resource URL (the tokens' audience) is known before it starts.
// Each is stopped at the end, also when a later one fails to start.
const running = [];
const started = async (service) => {
  running.push(service);
  return service;
};
let servers = { http: '', oauth: '' };

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
  'claude-code-http': () => {
    const where = place('claude-code-http', sim.url);
    const lines = commands(where.fill(block('claude-code-http')));
    for (const line of lines.filter((l) => l.startsWith('claude mcp add'))) sh(where, line);
    return expectConnected(sh(where, 'claude mcp list'), ['market-data'], 'claude mcp list');
  },
  'gemini-http': () => {
    const where = place('gemini-http', sim.url);
    for (const line of commands(where.fill(block('gemini-http'))).filter((l) => l.startsWith('gemini mcp add'))) sh(where, line);
    writeFileSync(join(where.home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [where.project]: 'TRUST_FOLDER' }));
    return expectConnected(sh(where, 'gemini mcp list'), ['market-data'], 'gemini mcp list');
  },
  'cursor-http': () => {
    const where = place('cursor-http', sim.url);
    mkdirSync(join(where.home, '.cursor'), { recursive: true });
    writeFileSync(join(where.home, '.cursor', 'mcp.json'), where.fill(block('cursor-http')));
    return mcporterTools(where, 'market-data');
  },
  'vscode-http': () => {
    const where = place('vscode-http', sim.url);
    mkdirSync(join(where.project, '.vscode'), { recursive: true });
    // What VS Code's prompt for the input puts in its place.
    const filled = where.fill(block('vscode-http')).replaceAll('${input:market-data-http-token}', HTTP_TOKEN);
    writeFileSync(join(where.project, '.vscode', 'mcp.json'), filled);
    return mcporterTools(where, 'market-data');
  },
  'mcp-remote': () => {
    const where = place('mcp-remote', sim.url);
    const config = JSON.parse(where.fill(block('mcp-remote')));
    const server = config.mcpServers['market-data'];
    // `npx -y mcp-remote` as installed beside the hosts: nothing is fetched while the check runs.
    if (server.command !== 'npx' || server.args[1] !== 'mcp-remote') throw new Error('the block no longer starts npx -y mcp-remote');
    server.command = join(values.bin ?? '', 'mcp-remote');
    server.args = server.args.slice(2);
    mkdirSync(join(where.home, '.cursor'), { recursive: true });
    writeFileSync(join(where.home, '.cursor', 'mcp.json'), JSON.stringify(config));
    // mcporter 0.12 fills `${AUTH_HEADER}` in args from its own environment, as a host that
    // expands them would (and skipped the server, "Unknown MCP server", when unset); mcp-remote
    // reads the same value from the entry's env either way.
    where.env.AUTH_HEADER = server.env.AUTH_HEADER;
    return mcporterTools(where, 'market-data');
  },
  'codex-http': () => {
    const where = place('codex-http', sim.url);
    mkdirSync(join(where.home, '.codex'), { recursive: true });
    writeFileSync(join(where.home, '.codex', 'config.toml'), where.fill(block('codex-http')));
    const entry = codexEntry(where, 'market-data');
    if (entry.transport?.url !== servers.http || entry.transport?.bearer_token_env_var !== 'MARKET_DATA_HTTP_TOKEN')
      throw new Error(`codex reads ${JSON.stringify(entry.transport)}`);
    return `codex reads the URL and bearer_token_env_var (auth: ${entry.auth_status})`;
  },
  'claude-code-oauth': () => {
    const where = place('claude-code-oauth', sim.url);
    for (const line of commands(where.fill(block('claude-code-oauth'))).filter((l) => l.startsWith('claude mcp add'))) sh(where, line);
    const output = sh(where, 'claude mcp list');
    const line = output.split('\n').find((l) => l.startsWith('market-data:'));
    if (!line || !/Needs authentication\s*$/.test(line)) throw new Error(`claude mcp list:\n${output.slice(-1500)}`);
    return 'market-data needs authentication (the sign-in starts from /mcp)';
  },
  'codex-oauth': () => {
    const where = place('codex-oauth', sim.url);
    mkdirSync(join(where.home, '.codex'), { recursive: true });
    writeFileSync(join(where.home, '.codex', 'config.toml'), where.fill(block('codex-oauth')));
    const entry = codexEntry(where, 'market-data');
    if (entry.auth_status !== 'not_logged_in') throw new Error(`codex auth status ${entry.auth_status}`);
    return 'codex found the OAuth sign-in: not logged in until `codex mcp login market-data`';
  },
  'mcpb demo only': () => bundleAnswers({ demo: true }, 'demo'),
  'mcpb key and URL only': () => bundleAnswers({ api_key: KEY, base_url: sim.url }, 'key-url'),
};

let failed = 0;
try {
  const staticHttp = await started(await serveHttp({ MARKET_DATA_HTTP_TOKEN: HTTP_TOKEN }));
  const idp = await started(await startIdentityProvider());
  const oauthPort = await freePort();
  const oauthHttp = await started(
    await serveHttp({ MARKET_DATA_OAUTH_ISSUER: idp.issuer, MARKET_DATA_OAUTH_RESOURCE: `http://127.0.0.1:${oauthPort}/mcp` }, oauthPort),
  );
  servers = { http: staticHttp.url, oauth: oauthHttp.url };
  for (const [name, check] of Object.entries(checks)) {
    try {
      console.log(`ok    ${name.padEnd(24)} ${await check()}`);
    } catch (error) {
      failed += 1;
      console.log(`FAIL  ${name.padEnd(24)} ${error instanceof Error ? error.message : String(error)}`);
    }
  }
} finally {
  for (const service of running) service.stop();
  await sim.close();
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed === 0 ? 0 : 1);
