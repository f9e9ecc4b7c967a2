/**
 * The first five minutes: the server as the hosts start it. The MCPB bundle's
 * environment comes from the mcpb tooling itself (getMcpConfigForManifest), which leaves
 * an unset optional field as the literal `${user_config.NAME}`; a typo in an optional
 * variable or a toolset name must not cost the user the key, the URL or demo mode.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { getMcpConfigForManifest, type McpbManifestAny } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { loadConfig } from '../../src/config/config.js';
import { TOOLSETS } from '../../src/runtime.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Status {
  server: { base_url: string | null; key_configured: boolean; simulated: boolean; config_warnings: string[] };
}

/** The command, arguments and environment Claude Desktop would start the unpacked bundle with. */
async function bundleLaunch(
  userConfig: Record<string, string | boolean>,
): Promise<{ command: string; args: string[]; env: Record<string, string> }> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')) as McpbManifestAny;
  const config = await getMcpConfigForManifest({ manifest, extensionPath: ROOT, systemDirs: {}, userConfig, pathSeparator: '/' });
  assert.ok(config, 'the manifest yields a launch configuration');
  return { command: config.command, args: config.args ?? [], env: config.env ?? {} };
}

async function startBundle(userConfig: Record<string, string | boolean>): Promise<{ client: Client; env: Record<string, string> }> {
  const launch = await bundleLaunch(userConfig);
  const transport = new StdioClientTransport({
    // `node` as Claude Desktop resolves it: the runtime running these tests.
    command: launch.command === 'node' ? process.execPath : launch.command,
    args: launch.args,
    env: { PATH: process.env['PATH'] ?? '', HOME: mkdtempSync(join(tmpdir(), 'mdmcp-home-')), ...launch.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
  await client.connect(transport);
  return { client, env: launch.env };
}

test('loadConfig: a host placeholder left unsubstituted counts as unset', () => {
  const result = loadConfig({
    MARKET_DATA_API_KEY: '${user_config.api_key}',
    MARKET_DATA_BASE_URL: '${user_config.base_url}',
    MARKET_DATA_TOOLSETS: ' ${user_config.toolsets} ',
    MARKET_DATA_DEMO: 'true',
    MARKET_DATA_LOG_LEVEL: '${input:log-level}',
  });
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(result.config.apiKey, undefined);
  assert.equal(result.config.baseUrl, undefined);
  assert.equal(result.config.toolsets, undefined);
  assert.equal(result.config.demo, true);
  assert.equal(result.config.logLevel, 'info');
  assert.deepEqual(result.warnings, []);
});

test('loadConfig: invalid optional variables fall back to their defaults and keep the key, URL and demo mode', () => {
  const result = loadConfig({
    MARKET_DATA_API_KEY: 'sim-live-key',
    MARKET_DATA_BASE_URL: 'https://api.example.com',
    MARKET_DATA_DEMO: 'yes',
    MARKET_DATA_LOG_LEVEL: 'verbose',
    MARKET_DATA_DEADLINE_MS: '50s',
    MARKET_DATA_CACHE_ENTRIES: '-1',
  });
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(result.config.apiKey, 'sim-live-key');
  assert.equal(result.config.baseUrl, 'https://api.example.com');
  assert.equal(result.config.demo, true);
  const defaults = loadConfig({}).config;
  assert.equal(result.config.logLevel, defaults.logLevel);
  assert.equal(result.config.deadlineMs, defaults.deadlineMs);
  assert.equal(result.config.cacheEntries, defaults.cacheEntries);
  assert.deepEqual(result.warnings.map((w) => w.variable).sort(), [
    'MARKET_DATA_CACHE_ENTRIES',
    'MARKET_DATA_DEADLINE_MS',
    'MARKET_DATA_LOG_LEVEL',
  ]);
  for (const warning of result.warnings) assert.match(warning.message, /using the default/);
});

test('loadConfig: a bad base URL is a problem, yet the valid rest of the configuration is kept', () => {
  const result = loadConfig({ MARKET_DATA_BASE_URL: 'http://api.example.com', MARKET_DATA_DEMO: 'true', MARKET_DATA_TOOLSETS: 'shorts' });
  assert.ok(!result.ok);
  assert.deepEqual(
    result.problems.map((p) => p.variable),
    ['MARKET_DATA_BASE_URL'],
  );
  assert.equal(result.config.demo, true);
  assert.deepEqual(result.config.toolsets, ['shorts']);
});

test('MCPB bundle with only demo mode on: every data tool answers from the simulator', async () => {
  const { client, env } = await startBundle({ demo: true });
  try {
    assert.equal(env['MARKET_DATA_BASE_URL'], '${user_config.base_url}', 'the mcpb tooling leaves the placeholder as text');
    const { tools } = await client.listTools();
    assert.ok(tools.length >= 23, `${tools.length} tools`);
    const gex = await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', limit: 1 } });
    assert.notEqual(gex.isError, true, JSON.stringify(gex).slice(0, 400));
    const status = (await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as Status;
    assert.equal(status.server.simulated, true);
    assert.deepEqual(status.server.config_warnings, []);
  } finally {
    await client.close();
  }
});

test('MCPB bundle with only a key and a URL: every toolset is offered and a data call answers', async () => {
  await withSimulator({}, async (sim) => {
    const { client, env } = await startBundle({ api_key: 'sim-live-key', base_url: sim.url });
    try {
      assert.equal(env['MARKET_DATA_TOOLSETS'], '${user_config.toolsets}');
      const { tools } = await client.listTools();
      assert.ok(tools.length >= 23, `${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`);
      const screener = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      assert.notEqual(screener.isError, true, JSON.stringify(screener).slice(0, 400));
    } finally {
      await client.close();
    }
  });
});

test('a typo in an optional variable: the server keeps demo mode, answers, and api_status names the variable', async () => {
  const { client, close, stderr } = await connectV2({
    args: ['--demo'],
    env: { MARKET_DATA_DEADLINE_MS: '30s', MARKET_DATA_LOG_LEVEL: 'warn' },
  });
  try {
    const gex = await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', limit: 1 } });
    assert.notEqual(gex.isError, true, JSON.stringify(gex).slice(0, 400));
    const status = (await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as Status;
    assert.equal(status.server.config_warnings.length, 1);
    assert.match(
      status.server.config_warnings[0] ?? '',
      /MARKET_DATA_DEADLINE_MS=30s is not a whole number of milliseconds; using the default \(50000\)/,
    );
    assert.match(stderr(), /MARKET_DATA_DEADLINE_MS/, 'the log says it too');
  } finally {
    await close();
  }
});

test('a typo in a toolset name: api_status and the tool list name it and give the valid toolsets', async () => {
  const { client, close } = await connectV2({ args: ['--demo', '--toolsets', 'shorts,derivd'] });
  try {
    const { tools } = await client.listTools();
    assert.ok(
      tools.some((t) => t.name === 'shorts_short_screener'),
      'the valid toolset still serves',
    );
    const status = (await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as Status;
    const warning = status.server.config_warnings.join(' ');
    assert.match(warning, /"derivd"/);
    for (const toolset of TOOLSETS) assert.ok(warning.includes(toolset), `names ${toolset}`);
  } finally {
    await close();
  }

  const only = await connectV2({ args: ['--demo'], env: { MARKET_DATA_TOOLSETS: 'flows' } });
  try {
    const { tools } = await only.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['api_status'],
    );
    const description = tools[0]?.description ?? '';
    assert.match(description, /NO DATA TOOLS/);
    assert.match(description, /"flows"/);
    assert.match(description, /Valid toolsets: flow, /);
  } finally {
    await only.close();
  }
});

test('without the bundle placeholders resolved and without demo, data calls say what to set', async () => {
  const { client } = await startBundle({});
  try {
    const error = errorOf(await client.callTool({ name: 'stocks_dividends', arguments: { ticker: 'SPY' } }));
    assert.equal(error.code, 'CONFIG_INVALID');
    assert.match(error.hint ?? '', /MARKET_DATA_API_KEY and MARKET_DATA_BASE_URL/);
    assert.doesNotMatch(error.hint ?? '', /user_config/);
  } finally {
    await client.close();
  }
});
