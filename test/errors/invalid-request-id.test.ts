/**
 * A RESPONSE_INVALID for an answer the upstream charged carries the upstream's request id
 * (what the hint tells the user to report), and its hint does not advise repeating the
 * charged call unchanged.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payloadParts, rowsIn } from '../../src/api/payload-parts.js';
import { get, withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789';

test("a dealer answer of another ticker is refused with the upstream's x-request-id and no advice to repeat the charged call", async () => {
  await withSimulator({}, async (sim) => {
    const page = await get(sim, '/v1/derived/dealer-gex/SPY/history?limit=4');
    const spy = rowsIn(payloadParts(page.body).data) ?? [];
    assert.ok(spy.length > 0);
    await withFakeUpstream(async (fake) => {
      // The request id only in the header, as many APIs send it.
      fake.answer = () => ({ body: { data: spy, _meta: { next_cursor: null } }, headers: { 'x-request-id': 'req-upstream-7f3a' } });
      const server = await connectV2({ baseUrl: fake.url, key: KEY });
      try {
        const refused = errorOf(await server.client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'QQQ' } }));
        assert.equal(refused.code, 'RESPONSE_INVALID');
        assert.equal(refused.request_id, 'req-upstream-7f3a', 'the id a report to the provider needs');
        assert.doesNotMatch(refused.hint ?? '', /call again/iu, 'a charged 200 is not to be repeated unchanged');
        assert.match(refused.hint ?? '', /charged/iu);
      } finally {
        await server.close();
      }
    });
  });
});
