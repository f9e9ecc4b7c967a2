/** A 422 in FastAPI's form, through the server: the agent reads what the API said and is told to fix its arguments. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, errorOf } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-foreign-0123456789';

test("a 422 whose body is FastAPI's {detail: [{loc, msg}]} reaches the agent as the API's words, a fix_input, the key left out", async () => {
  await withFakeUpstream(async (fake) => {
    const said = "Input should be 'house' (senate data is temporarily unavailable)";
    fake.answer = () => ({
      status: 422,
      body: { detail: [{ type: 'enum', loc: ['query', 'chamber'], msg: `${said} for ${KEY}`, input: 'senate' }] },
    });
    const server = await connectV2({ baseUrl: fake.url, key: KEY });
    try {
      const error = errorOf(await server.client.callTool({ name: 'congress_recent_trades', arguments: { chamber: 'senate' } }));
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.equal(error.action, 'fix_input');
      assert.ok(error.message.includes(`query.chamber: ${said}`), error.message);
      assert.ok(error.hint?.startsWith('Fix the arguments: query.chamber: '), error.hint ?? '');
      assert.doesNotMatch(JSON.stringify(error), /in front of the API|MARKET_DATA_BASE_URL/);
      assert.ok(!JSON.stringify(error).includes(KEY), 'the key never echoed');
      assert.equal(fake.dataRequests().length, 1, 'sent once, never retried');
    } finally {
      await server.close();
    }
  });
});
