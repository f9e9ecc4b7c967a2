/**
 * More claims of README.md and BENCHMARKS.md that the code can check: each reads the
 * sentence or table row back from the document, so that a change on either side fails
 * here until both agree.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CACHE_TTL_MS } from '../src/api/cache.js';
import { RETRY_POLICY } from '../src/api/retry-policy.js';
import { codeForStatus } from '../src/catalog/index.js';
import { ConfigSchema } from '../src/config/config.js';
import { ENV } from '../src/config/env-vars.js';
import { CLI } from './helpers/mcp.js';

const root = (file: string): string => fileURLToPath(new URL(`../../${file}`, import.meta.url));
const readme = readFileSync(root('README.md'), 'utf8');
const benchmarks = readFileSync(root('BENCHMARKS.md'), 'utf8');
/** The README's row of the retry table whose first cell matches `first`. */
/** A row of the README's retry table: its first cell starts with the HTTP status (the error-code table's starts with an anchor). */
function retryRow(first: RegExp): string {
  const row = readme.split('\n').find((line) => {
    const cell = line.split('|')[1] ?? '';
    return line.startsWith('| ') && /^\s*\d{3}/.test(cell) && first.test(cell);
  });
  assert.ok(row, `the README's table has a row for ${String(first)}`);
  return row;
}

test('every source, test and bench path the README and BENCHMARKS.md name exists', () => {
  const named = new Set<string>();
  for (const text of [readme, benchmarks])
    for (const match of text.matchAll(/`((?:src|test|bench|scripts|views|deploy)\/[^`\s]*)`/g)) named.add(match[1] ?? '');
  assert.ok(named.has('src/registry/import-memo.ts'), 'the paths are read');
  const missing = [...named].filter((path) => !existsSync(root(path)));
  assert.deepEqual(missing, []);
});

test("the README's configuration table gives the defaults the server uses", () => {
  const defaults = ConfigSchema.parse({}) as Record<string, unknown>;
  const checked = new Set<string>();
  for (const [field, variable] of Object.entries(ENV)) {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${variable}\` |`));
    const said = row?.split('|')[3]?.trim();
    const value = defaults[field];
    if (said === undefined || typeof value !== 'number') continue;
    assert.equal(said, `\`${value}\``, variable);
    checked.add(variable);
  }
  assert.deepEqual(
    checked,
    new Set([ENV.deadlineMs, ENV.resultTokens, ENV.maxResponseBytes, ENV.cacheEntries, ENV.redisCacheMb, ENV.catalogRefreshS]),
  );
});

test("the README's cache lifetimes are the cache's", () => {
  const said = /intraday (\d+) s, daily (\d+) min, filings (\d+) h, directories (\d+) h/.exec(readme);
  assert.ok(said, 'the README states the lifetimes');
  assert.deepEqual(
    [Number(said[1]) * 1000, Number(said[2]) * 60_000, Number(said[3]) * 3_600_000, Number(said[4]) * 3_600_000],
    [CACHE_TTL_MS.intraday, CACHE_TTL_MS.daily, CACHE_TTL_MS.filings, CACHE_TTL_MS.static],
  );
});

test("the README's retry table says what the policy table does", () => {
  const backoff = /jittered backoff ([\d.]+) s → ([\d.]+) s .*?(\d+) retries per call in all/.exec(retryRow(/500, 502, 504/));
  assert.ok(backoff, '5xx row');
  for (const code of ['INTERNAL_ERROR', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT', 'NETWORK_ERROR'] as const) {
    const rule = RETRY_POLICY[code];
    assert.equal(rule.kind, 'backoff', code);
    if (rule.kind !== 'backoff') continue;
    assert.deepEqual(
      [rule.baseDelayMs, rule.maxDelayMs, rule.maxRetries],
      [Number(backoff[1]) * 1000, Number(backoff[2]) * 1000, Number(backoff[3])],
      code,
    );
  }
  const disabled = /remembered for (\d+) minutes/.exec(retryRow(/SERVICE_DISABLED/));
  const rememberRule = RETRY_POLICY.SERVICE_DISABLED;
  assert.ok(disabled && rememberRule.kind === 'remember-disabled');
  assert.equal(rememberRule.rememberMs, Number(disabled[1]) * 60_000);
  const poll = RETRY_POLICY.NOT_READY;
  assert.ok(/never more than once a second/.test(retryRow(/^ 202/)) && poll.kind === 'poll');
  assert.equal(poll.floorMs, 1000);
  const refusals = retryRow(/^ 400,/).split('|')[1] ?? '';
  const statuses = [...refusals.matchAll(/\d{3}/g)].map((m) => Number(m[0]));
  assert.deepEqual(statuses, [400, 401, 402, 403, 404, 409, 410, 422]);
  for (const status of statuses) assert.equal(RETRY_POLICY[codeForStatus(status)].kind, 'never', `${status} is never retried`);
  assert.match(retryRow(/QUOTA_EXHAUSTED/), /no retry/);
  assert.equal(RETRY_POLICY.QUOTA_EXHAUSTED.kind, 'latch-quota');
});

test('--help names every environment variable the README documents, and the README every one --help names', () => {
  const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' }).stdout;
  // Where a shell reads it (trial of issue 22: `$(market-data-mcp --version)` was empty).
  const version = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' });
  assert.match(version.stdout, /^\d+\.\d+\.\d+/, `--version on stdout: ${version.stdout}`);
  assert.equal(version.stderr, '');
  const named = (text: string): Set<string> => new Set([...text.matchAll(/\bMARKET_DATA_[A-Z0-9_]*[A-Z0-9]\b/g)].map((m) => m[0]));
  const inHelp = named(help);
  assert.ok(inHelp.has('MARKET_DATA_HTTP_TOKEN') && inHelp.has('MARKET_DATA_API_KEY'), `--help lists the variables: ${help}`);
  // The test runner's own switch, documented beside the test command: not the server's.
  const inReadme = named(readme);
  inReadme.delete('MARKET_DATA_SKIP_SCALE_TESTS');
  assert.deepEqual([...inReadme].filter((name) => !inHelp.has(name)).sort(), [], 'documented in the README, missing from --help');
  assert.deepEqual([...inHelp].filter((name) => !inReadme.has(name)).sort(), [], 'in --help, not documented in the README');
});
