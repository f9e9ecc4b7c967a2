#!/usr/bin/env node
// What a user downloads and installs, beside the floor: a bare SDK server's own needs
// (@modelcontextprotocol/server and zod, at this lockfile's versions, installed alone).
// Packs the npm tarball, installs it globally into a temporary prefix, packs the MCPB
// bundle (scripts/bundle.sh, which builds first), and prints each size with its ratio.
// Usage: node bench/package-size.mjs        (needs the npm cache or registry for the floor)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diskUsage } from '../scripts/disk-usage.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'mdmcp-size-'));
const npm = (args, cwd = root) => execFileSync('npm', args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] }).toString();
const mb = (bytes) => (bytes / 1e6).toFixed(1).padStart(6);

try {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const version = (name) => lock.packages[`node_modules/${name}`].version;
  const floor = join(work, 'floor');
  npm([
    'install',
    '--prefix',
    floor,
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--prefer-offline',
    '--silent',
    `@modelcontextprotocol/server@${version('@modelcontextprotocol/server')}`,
    `zod@${version('zod')}`,
  ]);

  execFileSync('bash', [join(root, 'scripts/bundle.sh'), join(work, 'market-data-mcp.mcpb')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', work]);
  const tarball = join(
    work,
    readdirSync(work).find((f) => f.endsWith('.tgz')),
  );
  const prefix = join(work, 'prefix');
  npm(['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--silent', tarball]);

  const floorDisk = diskUsage(join(floor, 'node_modules')).disk;
  const rows = [
    ['bare SDK server: @modelcontextprotocol/server + zod (floor)', floorDisk],
    ['npm tarball (download)', diskUsage(tarball).apparent],
    ['global install (disk, dependencies included)', diskUsage(prefix).disk],
    ['MCPB bundle (download)', diskUsage(join(work, 'market-data-mcp.mcpb')).apparent],
  ];
  console.log(`node ${process.version}, npm ${npm(['--version']).trim()}; MB = 10^6 bytes`);
  for (const [label, bytes] of rows) console.log(`${label.padEnd(62)} ${mb(bytes)} MB  ${(bytes / floorDisk).toFixed(2)}x`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
