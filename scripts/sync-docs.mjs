#!/usr/bin/env node
// Writes what is derived from the code: the README tool table and manifest.json's tools (from
// the catalog), and the README's layout (from each source folder's README.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { manifestTools, withToolTable } from '../dist/mcp/sync-docs.js';
import { withLayout } from './layout.mjs';

const readme = readFileSync('README.md', 'utf8');
writeFileSync('README.md', withLayout(withToolTable(readme)));
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8'));
manifest.tools = manifestTools();
manifest.version = JSON.parse(readFileSync('package.json', 'utf8')).version;
writeFileSync('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
process.stderr.write('README.md tool table and layout, manifest.json tools written\n');
