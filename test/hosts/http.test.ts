/** The HTTP transport lets no stranger spend the key: a bearer token on every request. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI, serverEnv } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';
import { startHttp } from '../helpers/http-server.js';

const KEY = 'fake-key-0123456789';

const CALL = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'shorts_short_screener', arguments: { limit: 2 } } };

function post(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(CALL),
  });
}

test('--http without the token answers 401 with WWW-Authenticate and reaches no tool; with it, tools work', async () => {
  await withFakeUpstream(async (fake) => {
    const token = 'fault-http-token-0123456789';
    const server = await startHttp({ MARKET_DATA_BASE_URL: fake.url, MARKET_DATA_API_KEY: KEY, MARKET_DATA_HTTP_TOKEN: token });
    try {
      assert.doesNotMatch(server.stderr(), new RegExp(token), 'a token the user chose is never printed');
      for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: token }, { host: 'localhost' }]) {
        const refused = await post(server.url, headers);
        assert.equal(refused.status, 401, JSON.stringify(headers));
        assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer realm="market-data-mcp"/);
        await refused.body?.cancel();
      }
      assert.equal(fake.dataRequests().length, 0, 'no refused request reached a tool');

      const client = new Client({ name: 'http-faults', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      const result = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      assert.notEqual(result.isError, true);
      await client.close();
      assert.equal(fake.dataRequests().length, 1);
    } finally {
      await server.stop();
    }
  });
});

test('--http without MARKET_DATA_HTTP_TOKEN generates a token and prints it once, with the URL', async () => {
  const server = await startHttp({}, { args: ['--demo'] });
  try {
    const token = /Bearer token \(generated[^)]*\): (\S+)/.exec(server.stderr())?.[1];
    assert.ok(token && token.length >= 24, server.stderr());
    assert.equal(server.stderr().split(token).length - 1, 1, 'printed exactly once');
    const refused = await post(server.url, {});
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    const allowed = await post(server.url, { authorization: `Bearer ${token}` });
    assert.equal(allowed.status, 200);
    await allowed.body?.cancel();
  } finally {
    await server.stop();
  }
});

test('a non-loopback --host needs a chosen token and an allowed-hosts list, and says so before binding', async () => {
  const run = async (env: Record<string, string>, args: string[]): Promise<{ code: number | null; stderr: string }> => {
    const child = spawn(process.execPath, [CLI, '--http', '--demo', '--port', '0', '--host', '0.0.0.0', ...args], {
      env: serverEnv({ env }),
      stdio: 'pipe',
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    return { code, stderr };
  };
  const noToken = await run({}, ['--allowed-hosts', 'mcp.example.internal']);
  assert.notEqual(noToken.code, 0);
  assert.match(noToken.stderr, /not a loopback address: set MARKET_DATA_HTTP_TOKEN/);
  const noHosts = await run({ MARKET_DATA_HTTP_TOKEN: 'fault-http-token-0123456789' }, []);
  assert.notEqual(noHosts.code, 0);
  assert.match(noHosts.stderr, /--allowed-hosts/);
  assert.doesNotMatch(noHosts.stderr, /listening on/);
});
