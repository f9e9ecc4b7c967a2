/**
 * server.json for the MCP Registry (issue 33: it named schema 2025-09-29, which the
 * registry's publish step refuses: it takes only its current version). Checked against a
 * copy of the registry's own schema kept in schemas/mcp-registry/ with where it came from,
 * by a JSON Schema validator rather than a restatement of its rules, and against the
 * package it names, so that a release that bumps the version or renames the package cannot
 * leave the registry entry behind. No network: when the registry's current version moves
 * on, whoever reads it again updates the record (source.json), and this test fails until
 * the copy and server.json follow.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';

// ajv-formats is CommonJS with `exports.default`: under NodeNext its default import is the module.
const addFormats = formats.default;

const root = new URL('../../../', import.meta.url);
const text = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const read = (path: string): unknown => JSON.parse(text(path));

interface SchemaRecord {
  schemaVersion: string;
  published: string;
  copiedFrom: { sha256: string };
  registryCurrentVersion: string;
  currentVersionReadFrom: { repository: string; path: string; commit: string; readOn: string };
}

interface ServerJson {
  $schema: string;
  name: string;
  version: string;
  repository: { url: string; source: string };
  packages: { registryType: string; identifier: string; version?: string; fileSha256?: string; transport: { type: string } }[];
  remotes: { type: string; url: string }[];
}

const record = read('schemas/mcp-registry/source.json') as SchemaRecord;
const schemaFile = `schemas/mcp-registry/server.schema.${record.schemaVersion}.json`;

/**
 * The copy compiled as the registry compiles it: draft-07, formats checked. Not ajv's strict
 * mode, which lints how a schema is written (the registry's own style, e.g. `required` beside
 * properties defined elsewhere in an allOf), not whether a document is valid.
 */
function registryValidator(): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(read(schemaFile) as object);
}

const versionOf = (schemaUrl: string): string | undefined => /\/schemas\/(\d{4}-\d{2}-\d{2})\/server\.schema\.json$/.exec(schemaUrl)?.[1];

test("server.json is valid against the registry's schema, kept unedited beside the record of where it came from", () => {
  assert.equal(createHash('sha256').update(text(schemaFile)).digest('hex'), record.copiedFrom.sha256, 'the copy is as it was copied');
  const validate = registryValidator();
  const server = read('server.json');
  assert.ok(validate(server), JSON.stringify(validate.errors, null, 2));
  // The validator bites: what the registry refuses, it refuses.
  const tooLong = { ...(server as object), description: 'x'.repeat(101) };
  assert.equal(validate(tooLong), false, 'a description over 100 characters');
  const latest = structuredClone(server) as ServerJson;
  const npm = latest.packages[0];
  assert.ok(npm);
  npm.version = 'latest';
  assert.equal(validate(latest), false, 'a package version of "latest"');
});

test("server.json names the registry's current schema version, the one the copy is of and the record last read", () => {
  const server = read('server.json') as ServerJson;
  const copy = read(schemaFile) as { $id: string };
  const where = `${record.currentVersionReadFrom.repository} ${record.currentVersionReadFrom.path} at ${record.currentVersionReadFrom.commit}, read ${record.currentVersionReadFrom.readOn}`;
  assert.equal(
    record.schemaVersion,
    record.registryCurrentVersion,
    `the registry's current version is ${record.registryCurrentVersion} (${where}): copy that schema into schemas/mcp-registry/`,
  );
  assert.equal(versionOf(copy.$id), record.registryCurrentVersion, `the copy ${schemaFile} is of ${copy.$id}`);
  assert.equal(copy.$id, record.published);
  assert.equal(
    versionOf(server.$schema),
    record.registryCurrentVersion,
    `server.json's $schema must be ${record.published}: the registry refuses any other version (${where})`,
  );
});

test('server.json names this npm package, its MCPB bundle, its repository and the remote endpoint, at the version in package.json', () => {
  const server = read('server.json') as ServerJson;
  const pkg = read('package.json') as { name: string; version: string; mcpName?: string; repository: { url: string } };
  const manifest = read('manifest.json') as { version: string; repository: { url: string } };
  assert.equal(server.version, pkg.version, 'the entry is for the version in package.json');
  assert.equal(pkg.mcpName, server.name, 'package.json carries mcpName, which the registry checks to verify the npm package');
  const npm = server.packages.find((p) => p.registryType === 'npm');
  assert.equal(npm?.identifier, pkg.name);
  assert.equal(npm.version, pkg.version);
  const mcpb = server.packages.find((p) => p.registryType === 'mcpb');
  assert.ok(mcpb?.fileSha256, 'an MCPB package must carry the bundle file hash');
  assert.match(mcpb.identifier, new RegExp(`^https://.+/v${pkg.version.replaceAll('.', '\\.')}/market-data-mcp\\.mcpb$`));
  assert.equal(mcpb.version, manifest.version, 'the bundle is the one manifest.json describes');
  // One repository everywhere: npm's provenance checks package.json's against the one that built it.
  assert.equal(pkg.repository.url, `git+${server.repository.url}.git`);
  assert.equal(manifest.repository.url, server.repository.url);
  assert.ok(
    server.remotes.some((r) => r.type === 'streamable-http' && new URL(r.url).pathname === '/mcp'),
    'the remote endpoint is the --http server',
  );
});
