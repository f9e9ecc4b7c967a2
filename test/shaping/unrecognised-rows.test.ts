/**
 * A 200 whose rows are not the dataset's shape is never read as "nothing": on the dealer
 * path, generic rows answer a RESPONSE_INVALID naming the missing fields, not data: [].
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789';

test('generic rows on the dealer path are refused as RESPONSE_INVALID naming what is missing, in every view, never an empty answer', async () => {
  await withFakeUpstream(async (fake) => {
    fake.answer = () => ({
      body: { data: [{ ticker: 'SPY' }, { ticker: 'SPY' }], _meta: { next_cursor: null } },
      headers: { 'x-request-id': 'req-generic' },
    });
    const server = await connectV2({ baseUrl: fake.url, key: KEY });
    try {
      for (const view of ['latest', 'levels', 'sessions']) {
        const result = await server.client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', view } });
        assert.equal(result.isError, true, `view=${view} answered as if nothing were there: ${textOf(result).slice(0, 300)}`);
        const error = errorOf(result);
        assert.equal(error.code, 'RESPONSE_INVALID');
        assert.match(error.message, /snapshot_at/);
        assert.equal(error.request_id, 'req-generic');
      }
    } finally {
      await server.close();
    }
  });
});
