// The floor every bench reads its figures beside: a bare SDK server with one echo tool,
// written as a script in dist/ (where it finds the SDK) and deleted by remove().
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** `tag` keeps benches running at once apart. */
export function writeFloorServer(tag = 'bare') {
  const path = join(root, 'dist', `.bench-${tag}-${process.pid}.mjs`);
  writeFileSync(
    path,
    `import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
serveStdio(() => { const s = new McpServer({ name: 'bare', version: '1.0.0' });
s.registerTool('echo', { title: 'Echo', description: 'Echo', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
return s; });\n`,
  );
  return { path, remove: () => rmSync(path, { force: true }) };
}
