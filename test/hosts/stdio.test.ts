/** Abuse of the stdio channel. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { CLI, serverEnv } from '../helpers/mcp.js';

test('a stdio message over the SDK limit ends the process with a non-zero code and a clear stderr line', async () => {
  const child = spawn(process.execPath, [CLI, '--demo'], { env: serverEnv({}), stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  // The server stops reading mid-message and exits: the rest of the write meets a closed pipe.
  child.stdin.on('error', () => undefined);
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(11 * 1024 * 1024) } });
  child.stdin.write(`${huge}\n`);
  const [code] = await exited;
  assert.ok(code !== null && code !== 0, `exit code ${String(code)}`);
  assert.match(stderr, /stdio message was larger than 10 MB/);
});
