/**
 * A start with a disk copy of a document this build already imported registers its tools
 * from the import record (src/registry/import-memo.ts) and imports a dataset's parameters on its
 * first call. Driven through the built binary, which carries the build id the record needs.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Tool } from '@modelcontextprotocol/client';
import { ETF_FLOWS } from '../helpers/fixtures.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, freshCacheDir } from '../helpers/mcp.js';

const TOOL = 'etf_flows_by_ticker';

function fileIn(dir: string, prefix: string): string {
  const name = readdirSync(dir).find((f) => f.startsWith(prefix) && f.endsWith('.json'));
  assert.ok(name, `${prefix}*.json in the cache folder`);
  return join(dir, name);
}

/** Edits a JSON file in place. */
function edit(file: string, change: (value: Record<string, unknown>) => void): void {
  const value = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  change(value);
  writeFileSync(file, JSON.stringify(value));
}

test('a start from the disk copy serves the recorded import: same tools, the imported dataset answers and refuses as before', async () => {
  await withSimulator({ extraDatasets: [ETF_FLOWS] }, async (sim) => {
    const cacheDir = freshCacheDir();
    const start = () => connectV2({ baseUrl: sim.url, key: 'sim-live-key', env: { MARKET_DATA_CACHE_DIR: cacheDir } });
    const listed = async (): Promise<Tool[]> => {
      const server = await start();
      try {
        return (await server.client.listTools()).tools;
      } finally {
        await server.close();
      }
    };

    const first = await listed();
    assert.ok(
      first.some((t) => t.name === TOOL),
      'the first start imported the upstream dataset',
    );
    const record = fileIn(cacheDir, 'import-');
    const disk = fileIn(cacheDir, 'openapi-');

    const server = await start();
    try {
      assert.deepEqual((await server.client.listTools()).tools, first, 'the same tools, schemas and text from the record');
      const answered = await server.client.callTool({ name: TOOL, arguments: { ticker: 'SPY', days: 5 } });
      assert.notEqual(answered.isError, true, JSON.stringify(answered.content));
      const before = sim.api.requests.length;
      const refused = await server.client.callTool({ name: TOOL, arguments: { ticker: 'SPY', days: 500 } });
      assert.equal(refused.isError, true);
      assert.match(JSON.stringify(refused.content), /VALIDATION_ERROR/);
      assert.equal(sim.api.requests.length, before, 'refused here, from the parameters imported on first call');
    } finally {
      await server.close();
    }

    // What is served comes from the record: a title changed there shows.
    edit(record, (file) => {
      const records = file['records'] as { datasets: (string | { operationId: string; title: string })[] }[];
      for (const entry of records.flatMap((r) => r.datasets))
        if (typeof entry === 'object' && entry.operationId === ETF_FLOWS.operationId) entry.title = 'Recorded title';
    });
    assert.equal((await listed()).find((t) => t.name === TOOL)?.title, 'Recorded title');

    // A document the record was not made from is imported again.
    edit(disk, (document) => {
      const paths = document['paths'] as Record<string, { get: { summary: string } }>;
      const operation = paths[ETF_FLOWS.path];
      assert.ok(operation, 'the disk copy holds the upstream dataset');
      operation.get.summary = 'Changed upstream';
    });
    assert.equal((await listed()).find((t) => t.name === TOOL)?.title, 'Changed upstream [not reviewed]');
  });
});
