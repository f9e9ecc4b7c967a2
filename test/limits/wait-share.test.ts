/**
 * Wait or fail through the built binary when the rate headers show others spending the
 * account, so this process keeps to a share of 1 request in flight: calls queued behind
 * that one request, whose turn and own request cannot fit their deadline, are refused at
 * once (before the request ahead answers), not after waiting for it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, errorOf } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789-SECRET';
const TOOL = 'stocks_lit_trades_recent';
const row = {
  ticker: 'AAPL',
  price_usd: 283.1,
  size: 100,
  venue: 'NYSE',
  executed_at: '2026-11-23T15:59:59.800-05:00',
  session_date_et: '2026-11-23',
};

test('with an in-flight share of 1, queued calls that cannot be answered in time are refused before the request ahead answers', async () => {
  await withFakeUpstream(async (fake) => {
    // 10 of 60 spent while this process sent 1: others use the account, a share of 1 in flight.
    const shared = { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '50', 'x-request-id': 'req-shared' };
    fake.answer = () => ({ body: { data: [row], _meta: { next_cursor: null } }, headers: shared, delayMs: 1500 });
    const server = await connectV2({ baseUrl: fake.url, key: KEY, env: { MARKET_DATA_DEADLINE_MS: '2500' } });
    try {
      // Three answers show the pace (the gate refuses at once only on a pace it has seen three
      // times, never on one moment's: src/api/gate/latest-durations.ts).
      for (const limit of [1, 6, 7]) {
        const warmUp = await server.client.callTool({ name: TOOL, arguments: { limit } });
        assert.notEqual(warmUp.isError, true, 'a warm-up call (1.5 s) fits its 2.5 s deadline');
      }
      const finished: string[] = [];
      const calls = [2, 3, 4, 5].map((limit) =>
        server.client.callTool({ name: TOOL, arguments: { limit } }).then((result) => {
          finished.push(result.isError === true ? 'refused' : 'answered');
          return result;
        }),
      );
      const results = await Promise.all(calls);
      const answered = results.filter((r) => r.isError !== true);
      assert.equal(answered.length, 1, 'one request in flight at a time, and it fits');
      const refusals = results.filter((r) => r.isError === true).map((r) => errorOf(r));
      assert.equal(refusals.length, 3);
      for (const refusal of refusals) {
        assert.equal(refusal.code, 'RATE_LIMITED');
        assert.match(refusal.message, /nothing was sent/);
        // The request ahead takes about 1.5 s: a retry told to come sooner would queue behind it again.
        assert.ok(
          (refusal.retry_after_seconds ?? 0) >= 2,
          `retry_after_seconds ${String(refusal.retry_after_seconds)} is too soon to succeed`,
        );
      }
      assert.deepEqual(
        finished.slice(0, 3),
        ['refused', 'refused', 'refused'],
        `refused at once, not after the request ahead: ${finished.join(', ')}`,
      );
      assert.equal(fake.dataRequests().length, 4, 'only the warm-ups and the one call in flight reached the upstream');
    } finally {
      await server.close();
    }
  });
});
