/**
 * server.json for the MCP Registry, checked against the registry's server.json rules
 * (schema 2025-09-29: https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json,
 * restated here in zod) and against the package it names, so that a release that bumps
 * the version or renames the package cannot leave the registry entry behind.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as z from 'zod';

const root = new URL('../../../', import.meta.url);
const read = (path: string): unknown => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

/** A version, not a range (the registry refuses ^, ~, >=, x, * and "latest"). */
const exactVersion = z
  .string()
  .min(1)
  .max(255)
  .refine((v) => v !== 'latest' && !/[\^~><*]|\.x\b/.test(v), 'a version range');
const keyValue = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  format: z.enum(['string', 'number', 'boolean', 'filepath']).optional(),
  default: z.string().optional(),
  value: z.string().optional(),
});
const stdio = z.object({ type: z.literal('stdio') });
const streamableHttp = z.object({
  type: z.literal('streamable-http'),
  url: z.url({ protocol: /^https$/ }),
  headers: z.array(keyValue).optional(),
});
const registryPackage = z.strictObject({
  registryType: z.string().min(1),
  registryBaseUrl: z.url().optional(),
  identifier: z.string().min(1),
  version: exactVersion,
  fileSha256: z
    .string()
    .regex(/^[a-f0-9]{64}$/)
    .optional(),
  runtimeHint: z.string().optional(),
  transport: z.union([stdio, streamableHttp]),
  environmentVariables: z.array(keyValue).optional(),
});
const serverJson = z.object({
  $schema: z.literal('https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json'),
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  description: z.string().min(1).max(100),
  version: exactVersion,
  packages: z.array(registryPackage),
  remotes: z.array(streamableHttp),
});

test('server.json follows the MCP Registry schema and names this npm package, its MCPB bundle and the remote endpoint', () => {
  const parsed = serverJson.safeParse(read('server.json'));
  assert.ok(parsed.success, parsed.success ? '' : z.prettifyError(parsed.error));
  const server = parsed.data;
  const pkg = read('package.json') as { name: string; version: string; mcpName?: string };
  const manifest = read('manifest.json') as { version: string };
  assert.equal(server.version, pkg.version, 'the entry is for the version in package.json');
  assert.equal(pkg.mcpName, server.name, 'package.json carries mcpName, which the registry checks to verify the npm package');
  const npm = server.packages.find((p) => p.registryType === 'npm');
  assert.equal(npm?.identifier, pkg.name);
  assert.equal(npm?.version, pkg.version);
  const mcpb = server.packages.find((p) => p.registryType === 'mcpb');
  assert.ok(mcpb?.fileSha256, 'an MCPB package must carry the bundle file hash');
  assert.match(mcpb.identifier, new RegExp(`^https://.+/v${pkg.version.replaceAll('.', '\\.')}/market-data-mcp\\.mcpb$`));
  assert.equal(mcpb.version, manifest.version, 'the bundle is the one manifest.json describes');
  assert.ok(
    server.remotes.some((r) => new URL(r.url).pathname === '/mcp'),
    'the remote endpoint is the --http server',
  );
});
