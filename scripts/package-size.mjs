#!/usr/bin/env node
// Prints what a user downloads and installs, and fails when it outgrows its limit:
//   node scripts/package-size.mjs --mcpb market-data-mcp.mcpb --install <npm prefix>
// The MCPB bundle is measured as the file Claude Desktop downloads; the global install as
// the disk the whole prefix takes (like `du`), dependencies included. MB = 10^6 bytes.
import { parseArgs } from 'node:util';
import { diskUsage } from './disk-usage.mjs';

const LIMITS_MB = { mcpb: 5, install: 40 };

const { values } = parseArgs({ options: { mcpb: { type: 'string' }, install: { type: 'string' } }, strict: true });

const mb = (bytes) => (bytes / 1e6).toFixed(1);
let failed = false;
for (const [what, path] of [
  ['mcpb', values.mcpb],
  ['install', values.install],
]) {
  if (!path) continue;
  const { disk, apparent, files } = diskUsage(path);
  const size = what === 'mcpb' ? apparent : disk;
  const limit = LIMITS_MB[what];
  const ok = size <= limit * 1e6;
  failed ||= !ok;
  const label = what === 'mcpb' ? 'MCPB bundle    ' : 'global install ';
  console.log(
    `${label} ${mb(size).padStart(6)} MB  (limit ${limit} MB)  ${files} files, ${mb(apparent)} MB of content  ${ok ? 'ok' : 'OVER THE LIMIT'}`,
  );
}
if (failed) process.exit(1);
