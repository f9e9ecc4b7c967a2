import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { CLI, serverEnv } from '../helpers/mcp.js';

const TOKEN = 'e2e-http-token-0123456789';

test('--http serves MCP on loopback and refuses a foreign Origin (DNS-rebinding protection)', async () => {
  const child = spawn(process.execPath, [CLI, '--http', '--demo', '--port', '0'], {
    env: serverEnv({ env: { MARKET_DATA_HTTP_TOKEN: TOKEN } }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', () => reject(new Error(stderr)));
    });
    const client = new Client({ name: 'http-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'derived_dealer_gex_history'));
    const result = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
    assert.notEqual(result.isError, true);
    await client.close();

    const foreign = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'https://evil.example',
        authorization: `Bearer ${TOKEN}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});
