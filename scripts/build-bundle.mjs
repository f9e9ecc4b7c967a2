#!/usr/bin/env node
// After tsc: the work a start need not redo (dist/prebuilt.json, see src/prebuilt.ts),
// then dist/cli.js rebuilt as one bundle with esbuild, so a start reads one file instead
// of resolving ~45 modules one by one. Dynamic imports (simulator, HTTP transport, demo)
// stay separate chunks in dist/, loaded only when their mode asks. Measured in BENCHMARKS.md.
// Every dependency is inside the bundle (HTTP to the API is node's own), so the package has
// no runtime dependency; the chunks are named bundle-*.js so that package.json's "files"
// ships them and cli.js, and none of tsc's per-module output that tests and bench read.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const { computePrebuilt } = await import(new URL('../dist/prebuilt.js', import.meta.url).href);
const prebuilt = computePrebuilt();

// The SDK's Node shim, whose default JSON Schema validator evaluates Ajv at every start, is
// replaced by ours (src/sdk-shims.ts: why, and what validates instead).
const sdkShims = {
  name: 'sdk-shims',
  setup(bundle) {
    bundle.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: join(dist, 'sdk-shims.js') }));
  },
};

// The reference resolver (src/registry/openapi/dereference.ts) imports js-yaml for documents
// given as YAML files; it is only ever handed a parsed object, so its YAML parser never runs.
// Left out, the importer chunk a first start loads is 100 kB smaller.
const noYaml = {
  name: 'no-yaml',
  setup(bundle) {
    bundle.onResolve({ filter: /^js-yaml$/ }, () => ({ path: 'js-yaml', namespace: 'no-yaml' }));
    bundle.onLoad({ filter: /.*/, namespace: 'no-yaml' }, () => ({
      contents:
        "const refused = () => { throw new Error('YAML is not read: the OpenAPI document arrives parsed'); };\n" +
        'export const JSON_SCHEMA = {};\nexport default { load: refused, dump: refused, JSON_SCHEMA };\n',
      loader: 'js',
    }));
  },
};

const chunk = /^(bundle-)?[a-z0-9_-]+-[A-Z0-9]{8}\.js$/;
for (const file of readdirSync(dist)) if (chunk.test(file)) rmSync(join(dist, file));
const staging = join(dist, '.bundle');
rmSync(staging, { recursive: true, force: true });
await build({
  entryPoints: { cli: join(dist, 'cli.js') },
  outdir: staging,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  chunkNames: 'bundle-[name]-[hash]',
  // CommonJS dependencies bundled into ESM still call require().
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'warning',
  plugins: [sdkShims, noYaml],
});
// Chunks sit next to cli.js: demo.ts finds ./cli.js and runtime.ts ../package.json from there.
rmSync(join(dist, 'cli.js.map'), { force: true });
for (const file of readdirSync(staging)) renameSync(join(staging, file), join(dist, file));
rmSync(staging, { recursive: true, force: true });
// cli.js names every chunk by its content hash: its own hash identifies the whole build.
const buildId = createHash('sha256')
  .update(readFileSync(join(dist, 'cli.js')))
  .digest('hex');
writeFileSync(join(dist, 'prebuilt.json'), JSON.stringify({ ...prebuilt, buildId }));
