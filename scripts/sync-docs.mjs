#!/usr/bin/env node
// Writes what is derived from the catalog: the README tool table and manifest.json's tools.
import { readFileSync, writeFileSync } from 'node:fs';
import { manifestTools, withToolTable } from '../dist/mcp/docs.js';

const readme = readFileSync('README.md', 'utf8');
writeFileSync('README.md', withToolTable(readme));
const manifest = JSON.parse(readFileSync('manifest.json', 'utf8'));
manifest.tools = manifestTools();
manifest.version = JSON.parse(readFileSync('package.json', 'utf8')).version;
writeFileSync('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
process.stderr.write('README.md tool table and manifest.json tools written from the catalog\n');
