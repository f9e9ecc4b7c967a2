/** An operator's mistake with `market-data-mcp keys …` reads as a mistake, not as a crash. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI } from '../helpers/mcp.js';

const SECRET = 'a-test-secret-of-at-least-32-characters!';

function keys(file: string, args: string[], input = ''): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, 'keys', ...args], {
    input,
    env: { PATH: process.env['PATH'] ?? '', MARKET_DATA_KEY_MAP_FILE: file, MARKET_DATA_KEY_MAP_SECRET: SECRET },
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** One line on stderr, naming the command, with no JSON log line, stack or start-up failure. */
function assertOneLine(stderr: string, context: string): void {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `${context}: one line, got ${JSON.stringify(stderr)}`);
  const [line = ''] = lines;
  assert.match(line, /^market-data-mcp keys: /, context);
  assert.doesNotMatch(stderr, /failed to start|"level"|\bat .+:\d+:\d+/, context);
}

test('keys usage errors are one line on stderr with exit 2; a map that cannot be read exits 1', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-command-'));
  const file = join(dir, 'keys.sealed');
  assert.equal(keys(file, ['set', 'alice-agent'], 'alice-own-key-7f3a91c2\n').status, 0);

  const mistakes: Array<[string[], RegExp]> = [
    [['remove', 'nobody'], /nobody is not in the key map/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [[], /a command is needed/],
    [['remove'], /needs the subject/],
    [['set', 'bob-agent'], /pipe the API key on stdin/],
    [['list', 'extra'], /unexpected: extra/],
    [['list', '--nope'], /--nope/],
  ];
  for (const [args, problem] of mistakes) {
    const run = keys(file, args);
    const context = `keys ${args.join(' ')}`;
    assert.equal(run.status, 2, `${context}: exit 2, stderr ${run.stderr}`);
    assertOneLine(run.stderr, context);
    assert.match(run.stderr, problem, context);
    assert.equal(run.stdout, '', `${context}: nothing on stdout`);
  }

  // The map's path is a directory: reading it fails, which is not the operator's syntax.
  const unreadable = keys(dir, ['list']);
  assert.equal(unreadable.status, 1, unreadable.stderr);
  assertOneLine(unreadable.stderr, 'keys list on a directory');

  const listed = keys(file, ['list']);
  assert.equal(listed.status, 0, 'the mistakes left the map as it was');
  assert.match(listed.stdout, /^alice-agent\t/);
});
