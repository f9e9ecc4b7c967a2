/**
 * `--help` for every command (issue 33: `simulator --help` and `keys --help` failed with
 * "Unknown option"), printed where a shell reads it; a mistyped option or command is one
 * line on stderr naming the nearest valid one, exit 2, nothing started.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { CLI } from '../helpers/mcp.js';

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  // A command that started serving instead of answering would never exit: killed here, its status is null.
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 20_000,
    env: { PATH: process.env['PATH'] ?? '' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('every command answers --help and -h on stdout, exit 0, and starts nothing', () => {
  const cases: [string[], RegExp][] = [
    [['--help'], /Usage:\n {2}market-data-mcp \[options\]/],
    [['-h'], /--exclude-tools a,b/],
    [['simulator', '--help'], /^Usage: market-data-mcp simulator \[--port 8080\]/],
    [['simulator', '--port', '0', '-h'], /^Usage: market-data-mcp simulator/],
    [['keys', '--help'], /^Usage: market-data-mcp keys <command>[\s\S]*set <subject> \[--account NAME\]/],
    [['keys', 'set', 'alice@example.com', '--help'], /^Usage: market-data-mcp keys/],
    [['demo', '--help'], /^Usage: market-data-mcp demo/],
    [['help', 'simulator'], /^Usage: market-data-mcp simulator/],
    [['help'], /market-data-mcp <command> --help/],
  ];
  for (const [args, expected] of cases) {
    const answer = run(...args);
    const context = args.join(' ');
    assert.equal(answer.status, 0, `${context}: exit ${String(answer.status)}, stderr ${answer.stderr}`);
    assert.match(answer.stdout, expected, context);
    assert.equal(answer.stderr, '', `${context}: nothing on stderr`);
  }
});

test('a mistyped option or command names the nearest valid one and where help is, exit 2, in one line', () => {
  const cases: [string[], RegExp][] = [
    [['--toolset', 'shorts'], /^market-data-mcp: unknown option --toolset \(did you mean --toolsets/],
    [['--exclude-tool', 'api_status'], /unknown option --exclude-tool \(did you mean --exclude-tools\?\); see market-data-mcp --help/],
    [['simulater'], /unknown command "simulater" \(did you mean "simulator"\?\); commands: simulator, demo, keys/],
    [['simulator', '--prot', '0'], /unknown option --prot \(did you mean --port\?\); see market-data-mcp simulator --help/],
    [['demo', 'now'], /demo takes no argument "now"; see market-data-mcp demo --help/],
  ];
  for (const [args, expected] of cases) {
    const answer = run(...args);
    const context = args.join(' ');
    assert.equal(answer.status, 2, `${context}: exit ${String(answer.status)}, stderr ${answer.stderr}`);
    assert.match(answer.stderr, expected, context);
    assert.equal(answer.stderr.trim().split('\n').length, 1, `${context}: one line, no stack: ${answer.stderr}`);
    assert.equal(answer.stdout, '', context);
  }
});
