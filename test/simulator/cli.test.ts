import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));

test('`market-data-mcp simulator --port 0` prints its URL on stderr and serves the dealer GEX history', async () => {
  const child = spawn(process.execPath, [CLI, 'simulator', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(stderr);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', () => reject(new Error(`simulator exited: ${stderr}`)));
    });
    const response = await fetch(`${url}/v1/derived/dealer-gex/SPY/history`, { headers: { Authorization: 'Bearer sim-live-key' } });
    assert.equal(response.status, 200);
    assert.ok(response.headers.get('x-quota-reset-at'));
    const body = (await response.json()) as { data: unknown[] };
    assert.ok(body.data.length > 0);
    assert.equal(stdout, '', 'nothing on stdout');
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});
