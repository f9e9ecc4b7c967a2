/**
 * Ready to publish (issue 33): the MCPB manifest has an icon, a repository and a privacy
 * policy and passes the mcpb CLI's own validation (strict: unknown keys fail), the icon
 * ships in the package the bundle is made from, and package.json carries what npm's
 * provenance and a package page need.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string): unknown => JSON.parse(readFileSync(`${ROOT}${path}`, 'utf8'));
const MCPB_CLI = `${ROOT}node_modules/@anthropic-ai/mcpb/dist/cli/cli.js`;

interface Manifest {
  icon?: string;
  repository?: { type: string; url: string };
  homepage?: string;
  support?: string;
  privacy_policies?: string[];
}

test('manifest.json passes `mcpb validate` with its icon, repository, homepage, support and privacy policy', () => {
  const run = spawnSync(process.execPath, [MCPB_CLI, 'validate', 'manifest.json'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /Manifest schema validation passes!/);
  assert.doesNotMatch(run.stdout, /ERROR/);
  const manifest = read('manifest.json') as Manifest;
  assert.equal(manifest.icon, 'icon.png');
  assert.equal(manifest.repository?.type, 'git');
  for (const url of [manifest.repository?.url, manifest.homepage, manifest.support, ...(manifest.privacy_policies ?? [])])
    assert.match(url ?? '', /^https:\/\//, `${String(url)} is a web address`);
  assert.ok((manifest.privacy_policies ?? []).length > 0, 'the server sends the key and arguments to an outside API');
  assert.ok(manifest.privacy_policies?.[0]?.endsWith('/PRIVACY.md'));
  assert.ok(readFileSync(`${ROOT}PRIVACY.md`, 'utf8').includes('MARKET_DATA_BASE_URL'), 'the policy it names is in the repository');
});

test('the icon is a 512x512 PNG of a few KB, shipped in the npm package (and so in the bundle made from it)', () => {
  const png = readFileSync(`${ROOT}icon.png`);
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(png.subarray(12, 16).toString('ascii'), 'IHDR');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [512, 512], 'the size Claude Desktop asks for');
  assert.ok(png.length < 16 * 1024, `${png.length} bytes`);
  const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(packed.status, 0, packed.stderr);
  const [tarball] = JSON.parse(packed.stdout) as { files: { path: string }[] }[];
  const files = (tarball?.files ?? []).map((f) => f.path);
  for (const needed of ['icon.png', 'manifest.json', 'dist/cli.js', 'README.md', 'LICENSE']) assert.ok(files.includes(needed), needed);
  assert.deepEqual(
    files.filter((f) => /^(src|test|schemas|scripts)\//.test(f)),
    [],
    'sources, tests and schemas stay out of the package',
  );
});

test('package.json carries the fields npm provenance and the package page use', () => {
  const pkg = read('package.json') as {
    repository?: { type: string; url: string };
    homepage?: string;
    bugs?: { url: string };
    publishConfig?: { access?: string; provenance?: boolean };
    license?: string;
  };
  // Provenance links the package to the repository that built it: npm checks this URL against the build's.
  assert.equal(pkg.repository?.type, 'git');
  assert.match(pkg.repository?.url ?? '', /^git\+https:\/\/github\.com\/[^/]+\/[^/]+\.git$/);
  assert.match(pkg.homepage ?? '', /^https:\/\//);
  assert.match(pkg.bugs?.url ?? '', /\/issues$/);
  assert.deepEqual(pkg.publishConfig, { access: 'public', provenance: true });
  assert.equal(pkg.license, 'MIT');
});
