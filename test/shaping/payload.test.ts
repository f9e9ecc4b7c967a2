/** Payloads from an upstream the test controls: memory, error envelopes, the key echoed, deep JSON. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MarketDataClient } from '../../src/api/client.js';
import { CACHE_MAX_BYTES } from '../../src/api/cache.js';
import { DATASETS } from '../../src/catalog/index.js';
import { ConfigSchema } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789-SECRET';
const screener = DATASETS.find((d) => d.operationId === 'shorts.short_screener');

/** About `chars` characters of JSON rows, different for each `seed`. */
function rows(chars: number, seed: number): unknown[] {
  // A note that deflates about as little as real data does: the cache keeps its entries deflated.
  const note = (i: number) => [1, 2, 3, 4].map((k) => (Math.imul(i * 4 + k, 2654435761) ^ Math.imul(seed, 40503)) >>> 0).join('');
  const row = (i: number) => ({ ticker: `T${seed}X${i}`, short_float_pct: (i % 97) + seed / 1000, note: note(i) });
  const per = JSON.stringify(row(0)).length + 1;
  return Array.from({ length: Math.ceil(chars / per) }, (_, i) => row(i));
}

// Stated figure (with answers of 0.9 MB and entries of up to 1 MiB then): 120 distinct answers would hold ~110 MB of JSON, several times
// that as objects, in a cache bounded by entries only (201 MB retained, measured); the byte
// budget keeps what the process retains under RETAINED_LIMIT_MB. Peak RSS is printed, not
// asserted: it is mostly short-lived garbage, barely changes with the budget (369 MB
// without it), and moves with the Node version (467 MB on Node 24 with it).
const CALLS = 120;
/** What stays on the heap once garbage is collected: the cache's share is what the budget bounds. */
const RETAINED_LIMIT_MB = 120;

function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

test(`the response cache has a byte budget: 120 distinct 0.2 MB answers keep retained memory under ${RETAINED_LIMIT_MB} MB`, async () => {
  assert.ok(screener);
  await withFakeUpstream(async (fake) => {
    fake.answer = (_req, url) => ({ body: { data: rows(200_000, Number(url.searchParams.get('limit'))), _meta: {} } });
    const config = ConfigSchema.parse({ apiKey: KEY, baseUrl: fake.url, logLevel: 'silent' });
    const client = new MarketDataClient({ config, log: createLogger('silent') });
    let peak = 0;
    try {
      for (let limit = 1; limit <= CALLS; limit += 1) {
        await client.dataset(screener, undefined, { limit });
        peak = Math.max(peak, process.memoryUsage().rss);
      }
      collectGarbage();
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      const retained = heapUsed + arrayBuffers;
      const budget = await client.budget();
      assert.ok(budget.cache_entries > 0, 'answers within the budget are still cached');
      assert.ok(budget.cache_entries < CALLS, `${budget.cache_entries} entries: none let go for the budget of ${CACHE_MAX_BYTES} bytes`);
      process.stderr.write(
        `peak RSS ${Math.round(peak / 1048576)} MB, heap after GC ${Math.round(retained / 1048576)} MB, ${budget.cache_entries} entries cached\n`,
      );
      assert.ok(retained < RETAINED_LIMIT_MB * 1024 * 1024, `heap after GC ${Math.round(retained / 1048576)} MB`);
    } finally {
      await client.close();
    }
  });
});

test('an answer too large for one cache entry, and a 200 that carries an error envelope, are not cached', async () => {
  assert.ok(screener);
  await withFakeUpstream(async (fake) => {
    let envelope = true;
    fake.answer = (_req, url) => {
      if (url.searchParams.get('limit') === '1')
        return { body: envelope ? { error: { code: 'INTERNAL', message: 'oops' } } : { data: [{ ok: 1 }], _meta: {} } };
      return { body: { data: rows(300_000, 2), _meta: {} } };
    };
    const config = ConfigSchema.parse({ apiKey: KEY, baseUrl: fake.url, logLevel: 'silent' });
    const client = new MarketDataClient({ config, log: createLogger('silent') });
    try {
      await client.dataset(screener, undefined, { limit: 1 }).catch(() => undefined);
      envelope = false;
      const second = await client.dataset(screener, undefined, { limit: 1 });
      assert.deepEqual(second.data, [{ ok: 1 }], 'the error envelope was not served from the cache');
      assert.equal(second.meta.cache_hit, false);
      await client.dataset(screener, undefined, { limit: 2 });
      const again = await client.dataset(screener, undefined, { limit: 2 });
      assert.equal(again.meta.cache_hit, false, "a 300 kB answer is over the per-entry cap, the API's own ceiling of 256 KiB");
      assert.equal(fake.dataRequests().length, 4);
    } finally {
      await client.close();
    }
  });
});

test('an upstream that echoes the key never shows it to the agent, and a key typed into MARKET_DATA_TOOLSETS is never logged', async () => {
  await withFakeUpstream(async (fake) => {
    fake.answer = (_req, url) =>
      url.searchParams.get('limit') === '1'
        ? { body: { data: [{ note: `your key is ${KEY}` }], _meta: { notice: `key=${KEY}` } } }
        : {
            status: 400,
            body: { error: { code: 'VALIDATION_ERROR', message: `bad key ${KEY}`, hint: KEY, tags: [], docs_url: '', request_id: null } },
          };
    const server = await connectV2({
      baseUrl: fake.url,
      key: KEY,
      env: { MARKET_DATA_TOOLSETS: `shorts,${KEY}`, MARKET_DATA_LOG_LEVEL: 'trace' },
    });
    try {
      const ok = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 1 } });
      const failed = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      const everything = JSON.stringify([ok, failed]);
      assert.ok(fake.dataRequests().length === 2);
      assert.doesNotMatch(everything, new RegExp(KEY));
      assert.match(everything, /\[redacted\]/);
      assert.equal(errorOf(failed).code, 'VALIDATION_ERROR');
      assert.match(server.stderr(), /unknown toolset/i);
      assert.ok(!server.stderr().includes(KEY), 'the key appears in no log line');
    } finally {
      await server.close();
    }
  });
  await withFakeUpstream(async (fake) => {
    // No key configured at all: the pasted value is still not echoed.
    const server = await connectV2({ baseUrl: fake.url, env: { MARKET_DATA_TOOLSETS: KEY } });
    try {
      await server.client.listTools();
      assert.match(server.stderr(), /unknown toolset/i);
      assert.ok(!server.stderr().includes(KEY));
    } finally {
      await server.close();
    }
  });
});

test('JSON nested 3,000 levels deep answers RESPONSE_INVALID, and the server keeps serving', async () => {
  await withFakeUpstream(async (fake) => {
    const deep = `{"data":${'['.repeat(3000)}${']'.repeat(3000)},"_meta":{}}`;
    fake.answer = (_req, url) => (url.searchParams.get('limit') === '1' ? { body: deep } : { body: { data: [{ ok: 1 }], _meta: {} } });
    const server = await connectV2({ baseUrl: fake.url, key: KEY });
    try {
      const result = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 1 } });
      assert.equal(errorOf(result).code, 'RESPONSE_INVALID', textOf(result));
      const next = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      assert.notEqual(next.isError, true, textOf(next));
    } finally {
      await server.close();
    }
  });
});
