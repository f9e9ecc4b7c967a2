#!/usr/bin/env node
// Runs every compiled test file with node's built-in runner. Files are listed here
// because Node 20 takes no globs after --test and Node 22+ takes no bare directories.
import { spawnSync } from 'node:child_process';
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

const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
