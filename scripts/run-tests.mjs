#!/usr/bin/env node
// Runs every compiled test file with node's built-in runner. Files are listed here
// because Node 20 takes no globs after --test and Node 22+ takes no bare directories.
//
// A watchdog bounds the whole run (TEST_RUN_TIMEOUT_MIN, default 30; a full run takes
// about 6 minutes): node's runner waits for every test file's process to end, so a file
// that leaves a handle open (a child process, a socket) after its tests pass would stall
// CI until its own time limit, with no word of which file. The runner and every process
// it started are killed together (one process group), and the run fails saying so.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = 'dist-test/test';
const only = process.argv.slice(2);
const files = readdirSync(root, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.test.js'))
  .filter((file) => only.length === 0 || only.some((part) => file.includes(part)))
  .sort()
  .map((file) => join(root, file));

const minutes = Number(process.env.TEST_RUN_TIMEOUT_MIN ?? 30);
const runner = spawn(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit', detached: true });
const killGroup = (signal) => {
  try {
    process.kill(-runner.pid, signal);
  } catch {
    // already gone
  }
};
const watchdog = setTimeout(() => {
  process.stderr.write(
    `\nrun-tests: the test run did not end within ${minutes} min; a test file likely kept its process alive after its tests (see the last file named above). Killing it.\n`,
  );
  killGroup('SIGKILL');
}, minutes * 60_000);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => killGroup(signal));
runner.on('exit', (code, signal) => {
  clearTimeout(watchdog);
  // Whatever the runner left behind goes with it.
  killGroup('SIGKILL');
  process.exit(code ?? (signal ? 1 : 0));
});
