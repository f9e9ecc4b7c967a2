/** A --port that cannot be listened on stops the server with a clear message, with or without --demo. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { CLI, serverEnv } from '../helpers/mcp.js';

test('--http with a bad --port exits 1 naming the flag, also when --demo started a simulator', () => {
  for (const demo of [true, false]) {
    for (const bad of ['abc', '99999']) {
      const args = [CLI, '--http', ...(demo ? ['--demo'] : []), '--port', bad];
      const run = spawnSync(process.execPath, args, {
        env: serverEnv({
          env: { MARKET_DATA_HTTP_TOKEN: 'a-static-token-for-the-port-test-0123', MARKET_DATA_API_KEY: 'team-account-key-0001' },
        }),
        encoding: 'utf8',
        // A server that never exits is killed here and its status is null: the test fails, not hangs.
        timeout: 30_000,
      });
      const context = `${demo ? '--demo ' : ''}--port ${bad}`;
      assert.equal(run.status, 1, `${context}: exits 1 (signal ${String(run.signal)}), stderr ${run.stderr.slice(-300)}`);
      assert.match(run.stderr, new RegExp(`--port must be .*, got ${bad}`), context);
    }
  }
});
