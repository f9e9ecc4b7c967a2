/**
 * api_status during a Retry-After pause: discover is held back with the data requests, and
 * the status says so (and when to ask again) rather than "discover did not answer".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';
import { startSimProxy } from '../helpers/sim-proxy.js';

test('api_status in a rate-limit pause does not say discover did not answer when it was not sent', async () => {
  await withSimulator({}, async (sim) => {
    const rateLimited = {
      status: 429,
      headers: { 'retry-after': '30' },
      body: { error: { code: 'RATE_LIMITED', message: 'Too many requests.', recoverable: true, retry_after_seconds: 30 } },
    };
    const proxy = await startSimProxy(sim.url, (path) => (path.includes('short') ? { answer: rateLimited } : {}));
    const { client, close } = await connectV2({ baseUrl: proxy.url, key: 'sim-live-key', env: { MARKET_DATA_DEADLINE_MS: '5000' } });
    try {
      const data = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      assert.equal(data.isError, true);
      const status = await client.callTool({ name: 'api_status', arguments: {} });
      const text = JSON.stringify(status.content);
      const discoverSent = proxy.seen.some((s) => s.path.startsWith('/v1/discover'));
      if (!discoverSent) {
        assert.doesNotMatch(text, /discover did not answer/);
        assert.match(text, /discover was not sent/);
      } else assert.doesNotMatch(text, /not checked/);
    } finally {
      await close();
      await proxy.close();
    }
  });
});
