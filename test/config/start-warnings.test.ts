/**
 * The built binary says each bad setting on stderr at start, in the user's words, escaped
 * and without any secret; stdout, the MCP channel of stdio, stays clean.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { startHttp } from '../helpers/http-server.js';
import { CLI, serverEnv } from '../helpers/mcp.js';
import { eventually } from '../helpers/wait.js';

test('stdio: a bad number and a bad key are said on stderr, the key unshown; stdout holds nothing', async () => {
  const child = spawn(process.execPath, [CLI, '--demo'], {
    env: serverEnv({
      env: {
        MARKET_DATA_DEADLINE_MS: 'abc',
        MARKET_DATA_API_KEY: 'hunter2',
      },
    }),
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await eventually(() => stderr.includes('MARKET_DATA_DEADLINE_MS') && stderr.includes('MARKET_DATA_API_KEY'), 'the start-up warnings');
    assert.match(stderr, /MARKET_DATA_DEADLINE_MS=abc is not a whole number of milliseconds; using the default \(50000\)/);
    assert.match(stderr, /MARKET_DATA_API_KEY is too short for an API key \(8 characters or more\)/);
    assert.doesNotMatch(stderr, /hunter2/);
  } finally {
    child.stdin.end();
    if (child.exitCode === null) await once(child, 'exit');
  }
  assert.equal(stdout, '', 'stdout carries only MCP messages, and none was asked for');
});

test('--http: a grace and a connection cap that are not numbers are said at start, escaped, with what is used', async () => {
  const server = await startHttp(
    { MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS: 'abc', MARKET_DATA_HTTP_MAX_CONNECTIONS: '\u001b[31m\n{"level":60}' },
    { args: ['--demo'] },
  );
  let stdout = '';
  server.child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  try {
    assert.match(
      server.stderr(),
      /MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS=abc is not a whole number of milliseconds; using the default \(3000\)/,
    );
    // The escape sequence and the forged log line arrive escaped, inside the one warning line.
    assert.ok(
      server
        .stderr()
        .includes(
          'MARKET_DATA_HTTP_MAX_CONNECTIONS="\\u001b[31m\\u000a{\\"level\\":60}" is not a whole number of connections; using the default (256)',
        ),
      server.stderr(),
    );
    assert.ok(!server.stderr().includes('\u001b'), 'no raw escape on stderr');
  } finally {
    await server.stop();
  }
  assert.equal(stdout, '');
});

test('--http: a token too short stops the start, named and never shown', async () => {
  const child = spawn(process.execPath, [CLI, '--http', '--port', '0', '--demo'], {
    env: serverEnv({ env: { MARKET_DATA_HTTP_TOKEN: 'hunter2' } }),
    stdio: 'pipe',
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 1);
  assert.match(stderr, /MARKET_DATA_HTTP_TOKEN is shorter than 16 characters/);
  assert.doesNotMatch(stderr, /hunter2/);
});

test("--demo: an unknown simulator dialect is said, cut and escaped, and the spec's own is served instead of stopping", async () => {
  const dialect = `x\u001b[2J${'a'.repeat(50)}`;
  const server = await startHttp({ MARKET_DATA_SIM_DIALECT: dialect }, { args: ['--demo'] });
  try {
    const said = server
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { msg?: string }).msg);
    const shown = `"x\\u001b[2J${'a'.repeat(35)}"… (55 characters)`;
    assert.ok(
      said.includes(
        `MARKET_DATA_SIM_DIALECT=${shown} is not a simulator dialect (spec, camel, vendor, kebab, or seed:<n>); using the default (spec)`,
      ),
      server.stderr(),
    );
    assert.ok(!server.stderr().includes('\u001b'), 'no raw escape on stderr');
  } finally {
    await server.stop();
  }
});

test('--http: the warnings are said before a fatal setting stops the start, so one start shows all to fix', async () => {
  const stderr = await stoppedHttpStart({ MARKET_DATA_HTTP_TOKEN: 'hunter2', MARKET_DATA_HTTP_MAX_CONNECTIONS: 'lots' });
  const warning = stderr.indexOf('MARKET_DATA_HTTP_MAX_CONNECTIONS=lots is not a whole number of connections; using the default (256)');
  const fatal = stderr.indexOf('MARKET_DATA_HTTP_TOKEN is shorter than 16 characters');
  assert.ok(warning >= 0 && fatal > warning, stderr);
  assert.doesNotMatch(stderr, /hunter2/);
});

test("--http: the core settings' warnings (log level, cache, simulator dialect) are said before a fatal setting stops the start, as the HTTP ones are", async () => {
  const stderr = await stoppedHttpStart({
    MARKET_DATA_HTTP_TOKEN: 'hunter2',
    MARKET_DATA_HTTP_MAX_CONNECTIONS: 'lots',
    MARKET_DATA_LOG_LEVEL: 'loud',
    MARKET_DATA_CACHE_ENTRIES: 'many',
    MARKET_DATA_SIM_DIALECT: 'nope',
  });
  const fatal = stderr.indexOf('MARKET_DATA_HTTP_TOKEN is shorter than 16 characters');
  assert.ok(fatal >= 0, stderr);
  const said = [
    'MARKET_DATA_LOG_LEVEL=loud is not a log level',
    'MARKET_DATA_CACHE_ENTRIES=many is not a whole number of entries; using the default (500)',
    'MARKET_DATA_SIM_DIALECT=nope is not a simulator dialect',
    'MARKET_DATA_HTTP_MAX_CONNECTIONS=lots is not a whole number of connections; using the default (256)',
  ];
  for (const warning of said) {
    const at = stderr.indexOf(warning);
    assert.ok(at >= 0 && at < fatal, `${warning}: said before the fatal setting\n${stderr}`);
  }
  assert.doesNotMatch(stderr, /hunter2/);
});

/** The stderr of an --http --demo start that a fatal setting stops (exit 1). */
async function stoppedHttpStart(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [CLI, '--http', '--port', '0', '--demo'], { env: serverEnv({ env }), stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 1, stderr);
  return stderr;
}
