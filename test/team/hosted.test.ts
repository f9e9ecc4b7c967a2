/**
 * The hosted bench (bench/hosted.mjs) in its reduced form, once per CI: three nodes behind
 * HAProxy with Redis, four signed-in users on one account. Skipped, by name, when haproxy
 * or redis-server is not installed (.ci/run installs both).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const BENCH = fileURLToPath(new URL('../../../bench/hosted.mjs', import.meta.url));
const has = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const missing = ['haproxy', 'redis-server'].filter((c) => !has(c));

interface Figures {
  calls: number;
  answered: number;
  upstreamRequests: number;
  upstream429Pct: number;
  minFullWindowUsedPct: number | null;
  sharesPerBusyWindow: number[][];
}

test(
  "three nodes behind HAProxy share one account through Redis: every call answers, no upstream 429s to speak of, whole windows used, each user's share within 20 % of the others'",
  { skip: missing.length > 0 ? `${missing.join(' and ')} not installed` : false, timeout: 120_000 },
  () => {
    // The bench waits for each node's /readyz and for HAProxy to see every node UP before
    // any call, and prints the cause of a failure to start (test/team/refusal-close.test.ts
    // holds the one found): a failed start is a failure, with what the bench said.
    const run = spawnSync(process.execPath, [BENCH, '--reduced', '--json'], { encoding: 'utf8', timeout: 100_000 });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const last = run.stdout.trim().split('\n').at(-1) ?? '{}';
    const figures = JSON.parse(last) as Figures;
    assert.ok(figures.calls > 0);
    assert.equal(figures.answered, figures.calls, 'every call answered');
    assert.ok(figures.upstreamRequests >= figures.calls, 'each call went upstream (no answer shared): the gate was exercised');
    assert.ok(figures.upstream429Pct <= 1, `upstream 429s ${figures.upstream429Pct} %`);
    assert.ok(
      figures.minFullWindowUsedPct !== null && figures.minFullWindowUsedPct >= 95,
      `a full window used ${figures.minFullWindowUsedPct} %`,
    );
    assert.ok(figures.sharesPerBusyWindow.length > 0, 'a window in which every user was busy');
    // Turns are taken across the nodes (through Redis): in each window every user had calls
    // waiting throughout, their shares of the upstream's requests are within 20 % of the mean.
    for (const shares of figures.sharesPerBusyWindow) {
      const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
      assert.ok((Math.max(...shares) - Math.min(...shares)) / mean <= 0.2, `shares ${shares.join('/')} in a busy window`);
    }
  },
);
