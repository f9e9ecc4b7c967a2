/**
 * A start from the disk copy cleans the copy's text when the document is first read, not
 * before the first answer (src/registry/dataset-registry.ts): what market-data://openapi.json
 * serves is still cleaned, even when the file on disk was changed behind the server's back.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, freshCacheDir } from '../helpers/mcp.js';

/** Zero-width and bidi characters: invisible in a host, never carried over from an upstream. */
const HIDDEN = '\u200b\u202e';

test("the OpenAPI resource of a start from a disk copy is the copy's accepted document, its text cleaned", async () => {
  await withSimulator({}, async (sim) => {
    const cacheDir = freshCacheDir();
    const start = () => connectV2({ baseUrl: sim.url, key: 'sim-live-key', env: { MARKET_DATA_CACHE_DIR: cacheDir } });
    const first = await start();
    await first.close();
    const name = readdirSync(cacheDir).find((f) => f.startsWith('openapi-') && f.endsWith('.json'));
    assert.ok(name, 'the first start kept a disk copy');
    const file = join(cacheDir, name);
    const copy = JSON.parse(readFileSync(file, 'utf8')) as { info: { title: string } };
    copy.info.title = `Edited${HIDDEN} on disk`;
    writeFileSync(file, JSON.stringify(copy));

    const server = await start();
    try {
      await server.client.listTools();
      const read = await server.client.readResource({ uri: 'market-data://openapi.json' });
      const content = read.contents[0];
      assert.ok(content && 'text' in content, 'the resource is text');
      const served = JSON.parse(content.text) as { info: { title: string } };
      assert.equal(served.info.title, 'Edited on disk', 'the title of the disk copy, hidden characters removed');
    } finally {
      await server.close();
    }
  });
});
