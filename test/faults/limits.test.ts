/**
 * The fault matrix's limit cases, through the built binary: a 429 on a free start-up
 * request (openapi.json) neither pauses the account for the data calls that follow nor
 * is retried into them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, textOf } from '../helpers/mcp.js';
import { eventually, withFakeUpstream } from './fake-upstream.js';

const envelope = (code: string): unknown => ({ error: { code, message: code, tags: [], docs_url: '', request_id: null } });

test('a 429 on the free start-up openapi.json is not retried and does not pause the data calls after it', async () => {
  await withFakeUpstream(async (fake) => {
    let refused = false;
    // The first openapi.json meets RATE_LIMITED, as a process started just after the account's window was used up.
    fake.documentAnswer = () => {
      if (refused) return undefined;
      refused = true;
      return { status: 429, headers: { 'retry-after': '3' }, body: envelope('RATE_LIMITED') };
    };
    const server = await connectV2({
      baseUrl: fake.url,
      key: 'fake-key-0123456789',
      env: { MARKET_DATA_DEADLINE_MS: '2000' },
    });
    try {
      await eventually(() => fake.requests.length > 0, 10_000, 'the start-up request');
      const result = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      assert.notEqual(result.isError, true, `the data call was held by the free request's 429: ${textOf(result)}`);
      const documents = fake.requests.filter((r) => r.path.startsWith('/v1/openapi.json'));
      assert.equal(documents.length, 1, 'the refused free request was not retried into the calls that followed');
    } finally {
      await server.close();
    }
  });
});
