/**
 * Our cursors carry a query and an upstream position the server acts on, so they are
 * signed: one minted by a process of the account is followed by another (a node behind a
 * balancer, a restarted one), while a hand-built or edited one is refused before any
 * request. Two built servers over stdio against one simulator, its requests counted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';

const KEY = 'sim-live-key';

function nextCursorOf(result: { structuredContent?: unknown; content?: unknown }): string {
  const meta = (result.structuredContent as { meta?: { next_cursor?: unknown } } | undefined)?.meta;
  const next = meta?.next_cursor;
  assert.equal(typeof next, 'string', `a next cursor was handed out: ${textOf(result).slice(0, 300)}`);
  return String(next);
}

/** A cursor in our format with no valid tag: what a user could build from the README. */
function handBuilt(content: object): string {
  return `mc1-${Buffer.from(JSON.stringify(content)).toString('base64url')}`;
}

/** The same cursor with one byte of its payload changed (the row offset), the tag kept. */
function edited(cursor: string): string {
  const body = cursor.slice('mc1-'.length);
  const dot = body.lastIndexOf('.');
  assert.ok(dot > 0, 'our cursor carries a tag after its payload');
  const content = JSON.parse(Buffer.from(body.slice(0, dot), 'base64url').toString('utf8')) as { s?: number };
  const json = JSON.stringify({ ...content, s: (content.s ?? 0) + 1 });
  return `mc1-${Buffer.from(json).toString('base64url')}${body.slice(dot)}`;
}

test('a cursor from one process of the account is followed by another; a hand-built, edited or raw upstream one is refused unsent', async () => {
  await withSimulator({}, async (sim) => {
    // A small budget: the first answer is cut, and a cursor of ours continues inside it whatever
    // the upstream's paging (a composed dialect may cut its list with no next page of its own).
    const env = { MARKET_DATA_RESULT_TOKENS: '600' };
    const first = await connectV2({ baseUrl: sim.url, key: KEY, env });
    const second = await connectV2({ baseUrl: sim.url, key: KEY, env });
    try {
      const sent = (prefix: string): number => sim.api.requests.filter((r) => r.path.startsWith(prefix)).length;

      const page = await first.client.callTool({ name: 'congress_recent_trades', arguments: { limit: 200 } });
      assert.notEqual(page.isError, true, textOf(page));
      const cursor = nextCursorOf(page);
      assert.match(cursor, /^mc1-/);
      assert.doesNotMatch(cursor, new RegExp(KEY), 'the key is not in the cursor');

      const followed = await second.client.callTool({ name: 'congress_recent_trades', arguments: { cursor } });
      assert.notEqual(followed.isError, true, `the other process follows it: ${textOf(followed).slice(0, 300)}`);

      const before = sent('/v1/congress');
      // Edited, built from the README's format, or a raw token of the kind the upstream's own
      // cursor parameter takes: none was issued by this server, so none is sent (and charged).
      const raw = ['garbage', Buffer.from('{"offset":20}').toString('base64url')];
      for (const bad of [edited(cursor), handBuilt({ o: 'congress.recent_trades', q: { limit: 30 }, s: 100000 }), ...raw]) {
        for (const server of [first, second]) {
          const refused = errorOf(await server.client.callTool({ name: 'congress_recent_trades', arguments: { cursor: bad } }));
          assert.equal(refused.code, 'VALIDATION_ERROR');
          assert.match(refused.message, /not one this server issued/);
        }
      }
      assert.equal(sent('/v1/congress'), before, 'no refused cursor reached the upstream');

      // A list whose upstream pages by a cursor parameter of its own: a raw token is not passed through either.
      const darkpoolBefore = sent('/v1/darkpool');
      for (const bad of raw) {
        const refused = errorOf(await first.client.callTool({ name: 'darkpool_by_ticker', arguments: { ticker: 'AAPL', cursor: bad } }));
        assert.equal(refused.code, 'VALIDATION_ERROR');
        assert.match(refused.message, /not one this server issued/);
      }
      assert.equal(sent('/v1/darkpool'), darkpoolBefore, 'no raw cursor reached the upstream, none was charged');

      const dealerBefore = sent('/v1/derived');
      const forgedDealer = handBuilt({ o: 'derived.dealer_gex_history', t: 'SPY', q: {}, u: 'dp-2026-11-23-1' });
      const dealer = errorOf(
        await second.client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', cursor: forgedDealer } }),
      );
      assert.equal(dealer.code, 'VALIDATION_ERROR');
      assert.equal(sent('/v1/derived'), dealerBefore, 'the forged inner upstream cursor was not sent');
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
