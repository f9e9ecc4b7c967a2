/**
 * A burst behind a slow first answer, through the built binary: 500 calls at once against
 * an upstream allowing 5 requests in flight, whose first answers take 600 ms and the rest
 * 20 ms. The wait estimate learns the pace from the burst's own answers, not from the
 * first ones, so every call is served (issue 34: 241 of 500 were refused within 2 s as
 * needing about 94 s, while the other 259 were all answered by then).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2 } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789-SECRET';
const TOOL = 'market_total_options_volume';
const row = { date: '2026-11-20', calls: 123_456, puts: 98_765, premium_usd: 1_234_567.89 };

test('500 calls at once behind first answers of 600 ms, then 20 ms, are all served', { timeout: 120_000 }, async () => {
  await withFakeUpstream(async (fake) => {
    // A large account's fixed window, as a server names it (the fake's own reset moves every second).
    const window = { 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 55) };
    let inFlight = 0;
    let mostInFlight = 0;
    let answered = 0;
    fake.answer = () => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      const over = inFlight > 5;
      const delayMs = over ? 0 : (answered += 1) <= 5 ? 600 : 20;
      // Out of flight when its answer is written.
      setTimeout(() => (inFlight -= 1), delayMs);
      if (over)
        return {
          status: 429,
          headers: { ...window, 'retry-after': '1' },
          body: {
            error: {
              code: 'IN_FLIGHT_EXCEEDED',
              tags: [],
              message: 'More than 5 requests in flight.',
              docs_url: 'https://x',
              request_id: null,
            },
          },
        };
      return { body: { data: [row], _meta: { next_cursor: null } }, headers: window, delayMs };
    };
    const server = await connectV2({ baseUrl: fake.url, key: KEY, env: { MARKET_DATA_LOG_LEVEL: 'warn' } });
    try {
      const results = await Promise.all(
        Array.from({ length: 500 }, (_, i) => server.client.callTool({ name: TOOL, arguments: { limit: 1 + i } }, { timeout: 110_000 })),
      );
      const refused = results.filter((r) => r.isError === true);
      const first = refused[0]?.content;
      assert.equal(refused.length, 0, `${refused.length} of 500 refused, the first: ${JSON.stringify(first)}`);
      assert.ok(mostInFlight <= 5, `the upstream saw ${mostInFlight} requests in flight`);
    } finally {
      await server.close();
    }
  });
});
