/**
 * The built binary over stdio, restarted on the same cache folder while the upstream's
 * document is unavailable: a dataset retired on a fresh, complete document's evidence
 * stays retired (api_status says so and why); a document with few usable operations
 * retires nothing, before the restart or after it.
 */
import { NAME_TOOL_NAMES } from '../../src/mcp/tools/name-tools.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATASETS } from '../../src/catalog/index.js';
import { catalogDocument, withFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { connectV1, freshCacheDir } from '../helpers/mcp.js';
import { eventually } from '../helpers/wait.js';

const KEY = 'fake-key-0123456789';
const FOREX = '/v1/macro/forex-rate';

interface CatalogNotes {
  source: string;
  retired: { operationId: string; reason: string }[];
}

/** Tool names and the catalog notes of a server started on `cacheDir`, once `settled` holds for its tools. */
async function startedServer(
  fake: FakeUpstream,
  cacheDir: string,
  settled: (tools: string[]) => boolean,
): Promise<{ tools: string[]; notes: CatalogNotes }> {
  const server = await connectV1({ baseUrl: fake.url, key: KEY, env: { MARKET_DATA_CACHE_DIR: cacheDir } });
  try {
    let tools: string[] = [];
    await eventually(async () => {
      tools = (await server.client.listTools()).tools.map((t) => t.name);
      return settled(tools);
    }, 'the tool list to follow the document');
    const status = await server.client.callTool({ name: 'api_status', arguments: { details: true } });
    const notes = (status.structuredContent as { server?: { catalog?: CatalogNotes } }).server?.catalog;
    assert.ok(notes, JSON.stringify(status.structuredContent).slice(0, 300));
    return { tools, notes };
  } finally {
    await server.close();
  }
}

const datasetTools = (tools: readonly string[]): string[] =>
  tools.filter((t) => t !== 'api_status' && t !== 'volatility_compare' && !NAME_TOOL_NAMES.includes(t));

test('a dataset retired on a fresh, complete document stays retired after a restart from the disk copy', async () => {
  await withFakeUpstream(async (fake) => {
    const doc = catalogDocument();
    delete doc.paths[FOREX];
    fake.document = doc;
    const cacheDir = freshCacheDir();
    const first = await startedServer(fake, cacheDir, (tools) => !tools.includes('macro_forex_rate'));
    assert.equal(datasetTools(first.tools).length, DATASETS.length - 1, 'the fresh document retired one dataset');
    assert.deepEqual(
      first.notes.retired.map((r) => r.operationId),
      ['macro.forex_rate'],
    );

    fake.document = 'unavailable';
    const second = await startedServer(fake, cacheDir, () => true);
    assert.equal(second.notes.source, 'disk', 'the restart read the disk copy');
    assert.ok(!second.tools.includes('macro_forex_rate'), 'the retired dataset stays retired after the restart');
    assert.equal(datasetTools(second.tools).length, DATASETS.length - 1);
    assert.deepEqual(
      second.notes.retired.map((r) => r.operationId),
      ['macro.forex_rate'],
    );
    assert.match(second.notes.retired[0]?.reason ?? '', /\/v1\/macro\/forex-rate/, 'and says why');
  });
});

for (const usable of [0, 1, 4]) {
  test(`a document with ${usable} usable operation(s) leaves the 22 curated tools, also after a restart from its disk copy`, async () => {
    await withFakeUpstream(async (fake) => {
      const doc = catalogDocument();
      const kept = Object.keys(doc.paths).filter(
        (p) => !p.startsWith('/v1/openapi') && !p.startsWith('/v1/discover') && !p.startsWith('/v1/health'),
      );
      for (const path of kept.slice(usable)) delete doc.paths[path];
      for (let i = 0; i < 3; i += 1) doc.paths[`/v1/odd/op-${i}/{ticker}/{date}`] = { get: { operationId: `odd.${i}`, parameters: [] } };
      fake.document = doc;
      const cacheDir = freshCacheDir();
      const first = await startedServer(fake, cacheDir, () => true);
      assert.equal(datasetTools(first.tools).length, DATASETS.length, `${usable} usable: the catalog stays`);
      fake.document = 'unavailable';
      const second = await startedServer(fake, cacheDir, () => true);
      assert.equal(datasetTools(second.tools).length, DATASETS.length, `${usable} usable: the catalog stays after the restart`);
      assert.deepEqual(second.notes.retired, []);
    });
  });
}
