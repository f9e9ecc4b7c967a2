import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ENV } from '../src/config.js';
import { manifestTools, toolTableMarkdown } from '../src/mcp/docs.js';

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

test('manifest.json lists exactly the catalog tools, at the package version, on the built CLI', () => {
  assert.equal(manifest.manifest_version, '0.3');
  assert.deepEqual(manifest.tools, manifestTools(), 'manifest tools drifted from the catalog: run npm run sync-docs');
  assert.equal(manifest.version, pkg.version);
  assert.equal(manifest.server.entry_point, pkg.bin['market-data-mcp']);
});

test('the manifest passes settings through env names the server reads, and keeps the key secret', () => {
  const known = new Set<string>(Object.values(ENV));
  for (const name of Object.keys(manifest.server.mcp_config.env)) assert.ok(known.has(name), name);
  assert.equal(manifest.user_config['api_key']?.sensitive, true);
});

test('the README documents every environment variable the server reads', () => {
  for (const name of Object.values(ENV)) assert.ok(readme.includes(`\`${name}\``), name);
});
