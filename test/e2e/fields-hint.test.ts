/** The hint after a first call naming no known field says "free" only when asking again is free. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withFakeUpstream } from '../helpers/fake-upstream.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

const KEY = 'fake-key-0123456789-SECRET';

for (const cache of ['on', 'off'] as const) {
  test(`unknown fields on a dataset's first call, cache ${cache}: the hint's promise about asking again holds`, async () => {
    await withFakeUpstream(async (fake) => {
      fake.answer = () => ({ body: { data: [{ ticker: 'AAPL', short_float_pct: 1.5 }], _meta: {} } });
      const env: Record<string, string> = cache === 'off' ? { MARKET_DATA_CACHE_ENTRIES: '0' } : {};
      const server = await connectV2({ baseUrl: fake.url, key: KEY, env });
      try {
        const first = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 3, fields: ['shorts_pct'] } });
        const hint = errorOf(first).hint ?? '';
        assert.match(hint, /Fields available: ticker, short_float_pct/);
        assert.equal(fake.dataRequests().length, 1);
        const promisedFree = /asking again with these names is free/.test(hint);
        assert.equal(promisedFree, cache === 'on', hint);
        const again = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 3, fields: ['ticker'] } });
        assert.notEqual(again.isError, true);
        // Free means no second request reached the upstream.
        assert.equal(fake.dataRequests().length === 1, promisedFree, `${fake.dataRequests().length} requests after: ${hint}`);
        // Either way, names now known to be absent are refused before any request.
        const before = fake.dataRequests().length;
        const refused = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 4, fields: ['shorts_pct'] } });
        assert.equal(errorOf(refused).code, 'VALIDATION_ERROR');
        assert.equal(fake.dataRequests().length, before);
      } finally {
        await server.close();
      }
    });
  });
}
