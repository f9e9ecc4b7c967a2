/**
 * Every refusal carries a docs_url that opens: local refusals get the README's anchor of
 * their code, and an upstream's link to a loopback server (a simulator's short-lived port)
 * is replaced by that anchor too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

test('docs_url: a local VALIDATION_ERROR and TICKER_INVALID point at the README anchor; a loopback upstream link is not passed on', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const ticker = errorOf(await client.callTool({ name: 'volatility_risk_reversal_skew', arguments: { ticker: 'spy' } }));
      assert.equal(ticker.code, 'TICKER_INVALID');
      assert.match(String(ticker.docs_url), /README\.md#TICKER_INVALID$/);
      const validation = errorOf(await client.callTool({ name: 'volatility_compare', arguments: {} }));
      assert.equal(validation.code, 'VALIDATION_ERROR');
      assert.match(String(validation.docs_url), /README\.md#VALIDATION_ERROR$/);
      const upstream = errorOf(await client.callTool({ name: 'volatility_risk_reversal_skew', arguments: { ticker: 'ZZZZ' } }));
      assert.equal(upstream.code, 'NOT_FOUND');
      assert.doesNotMatch(String(upstream.docs_url), /127\.0\.0\.1/);
      assert.match(String(upstream.docs_url), /README\.md#NOT_FOUND$/);
    } finally {
      await close();
    }
  });
});
