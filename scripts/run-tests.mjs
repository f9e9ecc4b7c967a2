#!/usr/bin/env node
// Runs every compiled test file with node's built-in runner. Files are listed here
// because Node 20 takes no globs after --test and Node 22+ takes no bare directories.
//
// Test files run several at a time (TEST_CONCURRENCY, default 4): most of the suite
// waits on I/O (child processes, sockets), not on the 2 cores. The few files that
// measure real time or load several server processes (ALONE below) then run one at a
// time, so that the others' load cannot skew what they measure. Arguments keep only the
// files whose path contains one of them: `node scripts/run-tests.mjs e2e/ answers/`.
//
// A watchdog bounds the whole run (TEST_RUN_TIMEOUT_MIN, default 30): node's runner
// waits for every test file's process to end, so a file that leaves a handle open (a
// child process, a socket) after its tests pass would stall CI until its own time limit,
// with no word of which file. The runner and every process it started are killed
// together (one process group), and the run fails saying so.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = 'dist-test/test';
/**
 * Files run alone, after the rest: the Redis files (their server processes join Redis in
 * the background, and beside other files' load they join later than the tests allow; one
 * of them times start-up), and the scale tests whose servers are separate processes on
 * real rate windows (see test/helpers/scale.ts); the hosted test (three nodes behind
 * HAProxy on real windows) and the pathological-payload faults (pings timed against an
 * ordinary call's), whose figures mean nothing beside three other files' load.
 */
const ALONE = ['redis/', 'scale/processes.test.js', 'scale/redis-', 'scale/hosted.test.js', 'shaping/pathological-payload.test.js'];

const only = process.argv.slice(2);
const files = readdirSync(root, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.test.js'))
  .filter((file) => only.length === 0 || only.some((part) => file.includes(part)))
  .sort();
const alone = files.filter((file) => ALONE.some((name) => file.includes(name)));
const together = files.filter((file) => !alone.includes(file));
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 4));
const timings = fileURLToPath(new URL('./test-timings.mjs', import.meta.url));

const minutes = Number(process.env.TEST_RUN_TIMEOUT_MIN ?? 30);
let runner;
const killGroup = (signal) => {
  try {
    if (runner) process.kill(-runner.pid, signal);
  } catch {
    // already gone
  }
};
const watchdog = setTimeout(() => {
  process.stderr.write(
    `\nrun-tests: the test run did not end within ${minutes} min; a test file likely kept its process alive after its tests (see the last file named above). Killing it.\n`,
  );
  killGroup('SIGKILL');
  process.exit(1);
}, minutes * 60_000);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => killGroup(signal));

/** One node --test run over `group`; resolves with its exit code. */
function run(group, parallel) {
  if (group.length === 0) return Promise.resolve(0);
  runner = spawn(
    process.execPath,
    [
      '--test',
      `--test-concurrency=${parallel}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${timings}`,
      '--test-reporter-destination=stdout',
      ...group.map((file) => join(root, file)),
    ],
    { stdio: 'inherit', detached: true },
  );
  return new Promise((resolve) => {
    runner.on('exit', (code, signal) => {
      // Whatever the runner left behind goes with it.
      killGroup('SIGKILL');
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const started = Date.now();
const first = await run(together, concurrency);
const second = await run(alone, 1);
clearTimeout(watchdog);
process.stdout.write(
  `\nrun-tests: ${files.length} files in ${((Date.now() - started) / 1000).toFixed(0)} s (${together.length} at ${concurrency} at a time, ${alone.length} alone)\n`,
);
process.exit(first || second);
