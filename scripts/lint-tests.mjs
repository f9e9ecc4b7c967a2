#!/usr/bin/env node
// Finds test assertions that cannot fail (run by `npm run lint`):
// - a length asserted on the result of `await Promise.all(...)`: Promise.all always
//   resolves to as many results as it was given, so the assertion holds by construction;
// - `every` asserted over an array nothing shows to be non-empty: it is true of an empty
//   array, so a filter that returns nothing passes. Assert the length, or compare the exact
//   set, in the same statement or the few lines before; or say why on the line before
//   with `// non-empty: <why>`;
// - an assertion on a schema built in the test itself (`z.object(...).safeParse`), which
//   tests zod rather than our code;
// - a fixed wait (`await new Promise(... setTimeout(..., 2000))`) outside a polling loop:
//   wait for the condition (test/helpers/wait.ts `eventually`) or a fake clock. Where time
//   itself must pass (an age, a simulated upstream's latency, a stall), say why on the line
//   before with `// time passes: <why>`. Polling steps in a `for`/`while` are not waits.
// Usage: node scripts/lint-tests.mjs [files...]   (default: every .ts file under test/)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : readdirSync('test', { recursive: true })
        .map(String)
        .filter((file) => file.endsWith('.ts'))
        .map((file) => join('test', file));

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Lines of the statement that contains line `i`, and a few lines before it. */
const around = (lines, i, before) => lines.slice(Math.max(0, i - before), i + 3).join('\n');

const problems = [];
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const allResults = new Set();
  lines.forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    const all = /(?:const|let)\s+(\w+)(?::[^=]+)?\s*=\s*await Promise\.all\(/.exec(line);
    if (all?.[1]) allResults.add(all[1]);
    for (const name of allResults) {
      if (new RegExp(`assert(?:\\.\\w+)?\\(\\s*${escape(name)}\\.length\\b`).test(line))
        problems.push(`${at}: asserts ${name}.length, which Promise.all fixes: assert what each result holds`);
    }
    if (/\.every\(/.test(line) && /assert/.test(around(lines, i, 2))) {
      const receiver = /([\w$.[\]'"]+(?:\.slice\([^)]*\))?|\))\.every\(/.exec(line)?.[1] ?? '';
      const literal = /\[[^\]]*\]\.every\(/.test(line);
      const why = /\/\/ non-empty: \S/.test(lines[i - 1] ?? '') || /\/\/ non-empty: \S/.test(line);
      const base = receiver.replace(/\.slice\(.*$/, '');
      const guarded = receiver !== ')' && new RegExp(`${escape(base)}(?:\\.slice\\([^)]*\\))?\\.length`).test(around(lines, i, 4));
      if (!literal && !why && !guarded)
        problems.push(
          `${at}: every() over ${receiver === ')' ? 'a computed list' : receiver}, which may be empty: assert its length or the exact set`,
        );
    }
    const fixedWait = /await new Promise\(\s*\(?(\w+)\)?\s*=>\s*setTimeout\(\1,\s*[\d_]+\s*\)\s*\)/.test(line);
    const polling = /\b(for|while)\s*\(/.test(line) || /\b(for|while)\s*\(.*\{\s*$/.test(lines[i - 1] ?? '');
    const said = /\/\/ time passes: \S/.test(lines[i - 1] ?? '');
    if (fixedWait && !polling && !said && !file.startsWith(join('test', 'helpers')))
      problems.push(`${at}: a fixed wait: wait for the condition (eventually) or say why with // time passes: <why>`);
    if (/assert[\s\S]*\bz\.\w+\([^)]*\)\.safeParse\(/.test(line))
      problems.push(`${at}: asserts a schema built in the test: this tests zod, not our code`);
  });
}
for (const problem of problems) process.stderr.write(`${problem}\n`);
if (problems.length > 0) {
  process.stderr.write(`lint-tests: ${problems.length} assertion(s) that cannot fail or fixed wait(s)\n`);
  process.exit(1);
}
