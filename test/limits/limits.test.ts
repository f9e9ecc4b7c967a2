/**
 * The fault matrix's limit cases, through the built binary: a 429 on a free start-up
 * request (openapi.json) neither pauses the account for the data calls that follow nor
 * is retried into them; a call that cannot be answered before its deadline says so rather
 * than being sent and aborted mid-flight.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';
import { eventually, withFakeUpstream } from '../helpers/fake-upstream.js';

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

test('with a slow upstream, calls that cannot be answered in time are refused unsent, never aborted mid-flight', async () => {
  await withFakeUpstream(async (fake) => {
    // Each answer takes 1.5 s; a call has 2.5 s: the five queued behind the first five cannot fit.
    fake.answer = (_req, url) => ({ body: { data: [{ value: 1 }], _meta: { request_id: `req-${url.search}` } }, delayMs: 1500 });
    const server = await connectV2({ baseUrl: fake.url, key: 'fake-key-0123456789', env: { MARKET_DATA_DEADLINE_MS: '2500' } });
    try {
      // One call first: the process learns how long a request takes.
      const first = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 1 } });
      assert.notEqual(first.isError, true, textOf(first));
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: i + 2 } })),
      );
      const refused = results.filter((r) => r.isError === true).map((r) => errorOf(r));
      assert.ok(refused.length > 0, 'some calls could not fit');
      for (const error of refused) {
        assert.equal(error.code, 'RATE_LIMITED', error.message);
        assert.equal(error.recoverable, true);
        assert.match(error.message, /nothing was sent/);
      }
      const abortedMidFlight = fake.dataRequests().filter((r) => r.closedEarly);
      assert.deepEqual(abortedMidFlight, [], 'no request was sent only to be aborted at its deadline');
      assert.equal(fake.dataRequests().length, 1 + results.length - refused.length, 'every answered call was sent once, no refused one');
    } finally {
      await server.close();
    }
  });
});
