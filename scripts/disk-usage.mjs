// Bytes on disk (like `du`) and apparent bytes of a file or folder, and how many files it holds.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function diskUsage(path) {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return { disk: stat.blocks * 512, apparent: stat.size, files: 1 };
  const total = { disk: stat.blocks * 512, apparent: 0, files: 0 };
  for (const entry of readdirSync(path)) {
    const inner = diskUsage(join(path, entry));
    total.disk += inner.disk;
    total.apparent += inner.apparent;
    total.files += inner.files;
  }
  return total;
}
