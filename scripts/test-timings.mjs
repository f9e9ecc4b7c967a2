// A node:test reporter that prints, once the run ends, the test files that took longest
// (wall clock, from the runner's own events): where the suite's time goes, for CI logs.
// Used beside the spec reporter by scripts/run-tests.mjs.
import { relative } from 'node:path';

export default async function* timings(source) {
  const perFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (!file || nesting !== 0) continue;
    const name = relative(process.cwd(), file);
    perFile.set(name, (perFile.get(name) ?? 0) + (details?.duration_ms ?? 0));
  }
  const slowest = [...perFile.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
  yield `\nslowest test files (sum of their top-level tests, s):\n`;
  for (const [name, ms] of slowest) yield `  ${(ms / 1000).toFixed(1).padStart(6)}  ${name}\n`;
}
