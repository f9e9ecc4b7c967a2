/**
 * --http: a caller that hangs up cancels its call. Queued calls are released before they
 * are sent (no charged answer for nobody), requests in flight are aborted, and a new
 * caller does not wait behind the ones that left. Run under frequent garbage collection:
 * on Node 20 the SDK's own abort signal (a cloned Request's) stops firing once collected.
 * CI runs this file on Node 20; run it on Node 24 too (see the README's reliability section).
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { withFakeUpstream, eventually } from '../helpers/fake-upstream.js';
import { postCall, readUntil, startHttp } from '../helpers/http-server.js';

const TOKEN = 'cancel-http-token-0123456789';
const GC_OFTEN = fileURLToPath(new URL('../helpers/gc-often.js', import.meta.url));
const CALLERS = 20;
/** The account's in-flight cap. */
const IN_FLIGHT = 5;

test('--http callers who hang up are not sent upstream, their requests in flight are aborted, and a new caller does not wait behind them', async () => {
  await withFakeUpstream(async (fake) => {
    // A slow upstream: each answer takes 4 s, so the account's 5 in flight fill and the rest queue.
    fake.answer = () => ({ body: { data: [{ value: 1 }], _meta: { request_id: 'req-slow' } }, delayMs: 4000 });
    const server = await startHttp(
      { MARKET_DATA_BASE_URL: fake.url, MARKET_DATA_API_KEY: 'fake-key-0123456789', MARKET_DATA_HTTP_TOKEN: TOKEN },
      { nodeArgs: ['--expose-gc', '--import', GC_OFTEN] },
    );
    try {
      const hangUps = Array.from({ length: CALLERS }, () => new AbortController());
      // Each caller asks for progress, so it is told when it is queued: the test hangs up once
      // every call is either in flight upstream or queued behind the account's in-flight cap.
      let queued = 0;
      const calls = hangUps.map(async (hangUp, i) => {
        try {
          const response = await postCall(
            server.url,
            TOKEN,
            { name: 'shorts_short_screener', arguments: { limit: i + 1 } },
            { signal: hangUp.signal, id: i + 1, progressToken: i + 1 },
          );
          await readUntil(response, (text) => text.includes('notifications/progress'));
          queued += 1;
          await readUntil(response, () => false);
        } catch {
          // hung up
        }
      });
      // Steady state: the account's in-flight slots all hold a 4 s request and every other
      // caller has been told it is queued. (A progress note alone does not mean "still
      // queued": a call told it is taking turns may be sent a moment later.)
      await eventually(
        () => fake.dataRequests().length >= IN_FLIGHT && queued >= CALLERS - IN_FLIGHT,
        20_000,
        'the in-flight slots to fill and the other calls to queue',
      );
      const sentAtHangUp = fake.dataRequests().length;
      for (const hangUp of hangUps) hangUp.abort();
      await Promise.all(calls);

      // A new caller: behind 15 queued calls of 4 s each it would wait 12 s or more.
      const fresh = await postCall(server.url, TOKEN, { name: 'shorts_short_screener', arguments: { limit: 50 } }, { id: 99 });
      assert.equal(fresh.status, 200);
      assert.match(await fresh.text(), /req-slow/, 'the new caller got its data');

      const forHungUp = fake.dataRequests().filter((r) => !r.path.includes('limit=50'));
      // The server hears each hang-up when its connection closes, a few milliseconds apart
      // under load: a slot freed by an aborted request may pass to a queued caller whose
      // own hang-up is not heard yet (that request is then aborted too). No more than that:
      // without the release of queued calls, all 15 would be sent, and answered.
      const sentAfter = forHungUp.length - sentAtHangUp;
      assert.ok(
        sentAfter <= sentAtHangUp,
        `${sentAfter} calls were sent upstream after their callers hung up, more than the ${sentAtHangUp} slots their hang-ups freed (server: ${server.stderr().slice(-1200)})`,
      );
      assert.ok(queued > 0, 'some calls were queued at the hang-up');
      const answered = forHungUp.filter((r) => !r.closedEarly).map((r) => r.path);
      assert.deepEqual(answered, [], 'every request in flight for a caller who left was aborted');
    } finally {
      await server.stop();
    }
  });
});

test('--http on SIGTERM: a call still running at the end of the grace gets a recoverable error, not a dropped connection', async () => {
  await withFakeUpstream(async (fake) => {
    fake.answer = () => ({ body: { data: [{ value: 1 }] }, delayMs: 20_000 });
    const server = await startHttp({
      MARKET_DATA_BASE_URL: fake.url,
      MARKET_DATA_API_KEY: 'fake-key-0123456789',
      MARKET_DATA_HTTP_TOKEN: TOKEN,
    });
    try {
      const response = await postCall(server.url, TOKEN, { name: 'shorts_short_screener', arguments: { limit: 3 } });
      const answer = readUntil(response, () => false);
      await eventually(() => fake.dataRequests().length > 0, 10_000, 'the call to reach the upstream');
      server.child.kill('SIGTERM');
      const text = await answer;
      assert.match(text, /shutting down/, `the caller was answered: ${text.slice(0, 300)}`);
      assert.match(text, /\\"recoverable\\":true/);
    } finally {
      await server.stop();
    }
  });
});
