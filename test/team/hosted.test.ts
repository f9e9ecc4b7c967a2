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
  'three nodes behind HAProxy share one account through Redis: every call answers, no upstream 429s to speak of, whole windows used, every user served',
  { skip: missing.length > 0 ? `${missing.join(' and ')} not installed` : false, timeout: 120_000 },
  () => {
    const bench = () => spawnSync(process.execPath, [BENCH, '--reduced', '--json'], { encoding: 'utf8', timeout: 55_000 });
    let run = bench();
    if (run.status !== 0) {
      // Seven processes on loopback ports probed free just before they bind: a run that could
      // not start (a port taken meanwhile, a connection refused) is tried once more, and what
      // it said is kept in the log. The figures below are asserted on a run that completed.
      process.stderr.write(`hosted bench, first run failed (status ${run.status}):\n${run.stderr}\n`);
      run = bench();
    }
    assert.equal(run.status, 0, run.stderr);
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
    const first = figures.sharesPerBusyWindow[0];
    assert.ok(first, 'a window in which every user was busy');
    // Fair shares across nodes are not exact (each node takes turns among its own callers):
    // CI checks that nobody is starved; bench/hosted.mjs prints the spread against its floor.
    for (const share of first) assert.ok(share > 0, `every user was served in a busy window (${first.join('/')})`);
  },
);
