/**
 * Every refusal carries a docs_url that opens for any client: the API's own page when it sent
 * one on the web, else this project's public README at the row of the code. A link to a
 * loopback server (a simulator's short-lived port) or to a local file is never passed on.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

const PUBLIC_README = /^https:\/\/github\.com\/[^/]+\/market-data-mcp\/blob\/main\/README\.md#/;

test('docs_url: a local VALIDATION_ERROR and TICKER_INVALID point at the public README; a loopback upstream link is not passed on', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const ticker = errorOf(await client.callTool({ name: 'volatility_risk_reversal_skew', arguments: { ticker: 'spy' } }));
      assert.equal(ticker.code, 'TICKER_INVALID');
      assert.match(String(ticker.docs_url), PUBLIC_README);
      assert.match(String(ticker.docs_url), /#TICKER_INVALID$/);
      const validation = errorOf(await client.callTool({ name: 'volatility_compare', arguments: {} }));
      assert.equal(validation.code, 'VALIDATION_ERROR');
      assert.match(String(validation.docs_url), /#VALIDATION_ERROR$/);
      const upstream = errorOf(await client.callTool({ name: 'volatility_risk_reversal_skew', arguments: { ticker: 'ZZZZ' } }));
      assert.equal(upstream.code, 'NOT_FOUND');
      assert.doesNotMatch(String(upstream.docs_url), /127\.0\.0\.1/);
      assert.match(String(upstream.docs_url), PUBLIC_README);
      assert.match(String(upstream.docs_url), /#NOT_FOUND$/);
    } finally {
      await close();
    }
  });
});

test("docs_url: the API's own documentation page is passed on; a file:// link it sends is not", async () => {
  for (const [docsUrl, expected] of [
    ['https://api.example.com/docs/errors', /^https:\/\/api\.example\.com\/docs\/errors#NOT_FOUND$/],
    ['file:///opt/market-data/README.md', PUBLIC_README],
  ] as const) {
    await withSimulator({ docsUrl }, async (sim) => {
      const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
      try {
        const error = errorOf(await client.callTool({ name: 'volatility_risk_reversal_skew', arguments: { ticker: 'ZZZZ' } }));
        assert.equal(error.code, 'NOT_FOUND');
        assert.match(String(error.docs_url), expected, `upstream sent ${docsUrl}`);
        assert.doesNotMatch(String(error.docs_url), /^file:/);
      } finally {
        await close();
      }
    });
  }
});
