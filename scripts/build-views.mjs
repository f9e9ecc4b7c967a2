#!/usr/bin/env node
// Builds each MCP Apps view (views/<name>/main.ts) into one self-contained HTML file,
// dist/views/<name>.html: script and styles inline, nothing fetched, so the view works
// under a host's CSP with no domains allowed. Fails when a view exceeds its size budget.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Buffer } from 'node:buffer';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const VIEWS = [
  { name: 'dealer-gex', title: 'Dealer gamma exposure' },
  { name: 'short-interest', title: 'Short interest' },
];
const MAX_BYTES = 250 * 1024;

const css = await readFile(join(root, 'views/shared/style.css'), 'utf8');
await mkdir(join(root, 'dist/views'), { recursive: true });
for (const view of VIEWS) {
  const result = await build({
    entryPoints: [join(root, 'views', view.name, 'main.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    legalComments: 'none',
  });
  // A literal "</script" inside the code would end the inline script early.
  const script = result.outputFiles[0].text.replaceAll('</script', '<\\/script');
  const page = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="color-scheme" content="light dark"><title>${view.title}</title>`,
    `<style>${css.replace(/\s*\n\s*/g, ' ')}</style></head><body>`,
    `<script>${script}</script></body></html>`,
  ].join('');
  const bytes = Buffer.byteLength(page);
  if (bytes > MAX_BYTES) throw new Error(`view ${view.name} is ${bytes} bytes, over the ${MAX_BYTES}-byte budget`);
  await writeFile(join(root, 'dist/views', `${view.name}.html`), page);
  console.error(`view ${view.name}: ${(bytes / 1024).toFixed(1)} KB`);
}
