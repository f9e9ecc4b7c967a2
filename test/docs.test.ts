import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ENV, ENV_VARS } from '../src/config/env-vars.js';
import { manifestTools, toolTableMarkdown } from '../src/mcp/sync-docs.js';
import { InFlightCap } from '../src/api/gate/in-flight-cap.js';
import { SNAPSHOT_STATES } from '../src/catalog/index.js';
import { tokens, withSession } from './helpers/answers-harness.js';

const root = (file: string): string => fileURLToPath(new URL(`../../${file}`, import.meta.url));
const readme = readFileSync(root('README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(root('manifest.json'), 'utf8')) as {
  manifest_version: string;
  version: string;
  tools: { name: string; description: string }[];
  server: { entry_point: string; mcp_config: { env: Record<string, string> } };
  user_config: Record<string, { sensitive?: boolean }>;
};
const pkg = JSON.parse(readFileSync(root('package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

test('the README tool table is the one generated from the catalog (npm run sync-docs)', () => {
  assert.ok(readme.includes(toolTableMarkdown()), 'README tool table drifted from the catalog: run npm run sync-docs');
});

/** scripts/layout.mjs, read at run time: it is plain JavaScript beside sync-docs. */
interface Layout {
  layoutSection: (root: string) => string;
  sourceFolders: (root: string) => string[];
  readRoom: (root: string, folder: string) => { stage?: number; skip?: string; consulted?: string };
}
const layout = (): Promise<Layout> => import(new URL('../../scripts/layout.mjs', import.meta.url).href) as Promise<Layout>;

test("the README's layout is the one written from each source folder's README.md (npm run sync-docs)", async () => {
  const { layoutSection } = await layout();
  assert.ok(readme.includes(layoutSection(root(''))), "README layout drifted from src/'s folders: run npm run sync-docs");
});

test("every folder of src/ says what it holds and where it stands on one call's path, the stages numbered once each", async () => {
  const { sourceFolders, readRoom } = await layout();
  const folders = sourceFolders(root(''));
  assert.ok(folders.includes('src/mcp/reading'), `folders found: ${folders.join(', ')}`);
  // readRoom throws naming the folder whose README.md is missing or says neither.
  const stages = folders.map((f) => readRoom(root(''), f).stage).filter((s): s is number => s !== undefined);
  assert.deepEqual(
    [...stages].sort((a, b) => a - b),
    Array.from({ length: stages.length }, (_, i) => i + 1),
  );
});

test('manifest.json lists exactly the catalog tools, at the package version, on the built CLI', () => {
  assert.equal(manifest.manifest_version, '0.3');
  assert.deepEqual(manifest.tools, manifestTools(), 'manifest tools drifted from the catalog: run npm run sync-docs');
  assert.equal(manifest.version, pkg.version);
  assert.equal(manifest.server.entry_point, pkg.bin['market-data-mcp']);
});

test('the manifest passes settings through env names the server reads, and keeps the key secret', () => {
  const known = new Set<string>(ENV_VARS.map((v) => v.name));
  for (const name of Object.keys(manifest.server.mcp_config.env)) assert.ok(known.has(name), name);
  assert.equal(manifest.user_config['api_key']?.sensitive, true);
});

test('the README and --help name every environment variable the server reads, and none it does not', () => {
  const table = ENV_VARS.map((v) => v.name);
  assert.ok(table.length > Object.keys(ENV).length, 'the table holds every concern, not only the core');
  const help = execFileSync(process.execPath, [root('dist/cli.js'), '--help'], { encoding: 'utf8' });
  for (const name of table) {
    assert.ok(readme.includes(`\`${name}\``), `README.md: ${name}`);
    assert.ok(help.includes(name), `--help: ${name}`);
  }
  // Every MARKET_DATA_ name the docs give is one the server reads (none renamed or invented);
  // `MARKET_DATA_OAUTH_*` names a family of them. The test runner's own switch is not the server's.
  const named = (text: string): string[] => [...new Set(text.match(/MARKET_DATA_[A-Z0-9_]*[A-Z0-9*]/g) ?? [])];
  const testRunnerOnly = new Set(['MARKET_DATA_SKIP_SCALE_TESTS']);
  const mentioned = [...named(readme), ...named(help), ...named(JSON.stringify(manifest))].filter((name) => !testRunnerOnly.has(name));
  assert.ok(mentioned.length >= table.length);
  for (const name of mentioned) {
    const read = name.endsWith('_*') ? table.some((v) => v.startsWith(name.slice(0, -1))) : table.includes(name);
    assert.ok(read, `${name} is named in the docs but not read by the server (config/env-vars.ts)`);
  }
});

// Claims of README.md and BENCHMARKS.md that the code can check. Each reads the sentence
// back from the document, so that a change on either side fails here until both agree.

const benchmarks = readFileSync(root('BENCHMARKS.md'), 'utf8');
/** The README as one line of text: sentences wrap across lines. */
const prose = (text: string): string => text.replace(/\s+/g, ' ');

test('the README says how many requests a process starts with in flight, as the gate does', () => {
  const said = /A process starts with the account's (\d+) requests in flight/.exec(prose(readme));
  assert.ok(said, 'the README states the starting in-flight cap');
  assert.equal(Number(said[1]), new InFlightCap().current(0));
  assert.equal(Number(said[1]), new InFlightCap().max, 'the account limit, not a slow start');
});

test("the README names the dealer snapshot's states the simulator answers, and only those", async () => {
  const said = [...prose(readme).matchAll(/`state` `(\w+)` or `(\w+)`/g)].map((m) => [m[1], m[2]]);
  assert.ok(said.length >= 1, 'the README states the values of state');
  const answered = new Set<string>();
  // Through the server, as a user reads them, on whichever dialect the simulator speaks (MARKET_DATA_SIM_DIALECT).
  await withSession({}, async (session) => {
    for (const ticker of ['SPY', 'QQQ', 'AAPL']) {
      const result = await session.call('derived_dealer_gex_history', { ticker, view: 'full', limit: 20 });
      for (const row of (result.structuredContent as { data: { state: string }[] }).data) answered.add(row.state);
    }
  });
  for (const pair of said)
    for (const state of pair) assert.ok(SNAPSHOT_STATES.includes(state as never), `${state} is a state of the schema`);
  assert.ok(answered.size >= 1);
  for (const state of answered)
    assert.ok(said.flat().includes(state), `the simulator answers state ${state}, which the README does not name`);
});

test('BENCHMARKS.md does not name bottleneck as a library still in use', () => {
  const stillThere = /The libraries the design names[^(]*\(([^)]*)\)/.exec(prose(benchmarks));
  assert.ok(stillThere, 'the sentence listing the libraries in use');
  assert.doesNotMatch(stillThere[1] ?? '', /bottleneck/);
  const pkg = JSON.parse(readFileSync(root('package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  assert.equal(pkg.dependencies?.['bottleneck'], undefined);
});

test("BENCHMARKS.md's tools/list size is within 5 % of today's", async () => {
  const said = /"?`tools\/list` size"?[\s\S]*?([\d,]+) o200k tokens/.exec(benchmarks);
  assert.ok(said, 'BENCHMARKS.md states the size of tools/list in o200k tokens');
  const stated = Number((said[1] ?? '').replace(/,/g, ''));
  const actual = await withSession({}, async (session) => tokens({ tools: (await session.client.listTools()).tools }));
  assert.ok(Math.abs(actual - stated) <= 0.05 * actual, `BENCHMARKS.md says ${stated} tokens, tools/list is ${actual}`);
});
