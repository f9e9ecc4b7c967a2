import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dealerGexHistoryResponse } from '../../src/catalog/index.js';
import { envelopeOf, get, withSimulator } from '../helpers/http.js';

type History = ReturnType<typeof dealerGexHistoryResponse.parse>;

test('the dealer GEX history matches the spec schema, with all nine _meta fields', async () => {
  await withSimulator({}, async (sim) => {
    const response = await get(sim, '/v1/derived/dealer-gex/SPY/history');
    assert.equal(response.status, 200);
    const parsed = dealerGexHistoryResponse.strict().safeParse(response.body);
    assert.ok(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3)));
    const meta = (response.body as { _meta: Record<string, unknown> })._meta;
    assert.deepEqual(Object.keys(meta).sort(), [
      'cache_hit',
      'data_freshness_seconds',
      'data_source',
      'next_cursor',
      'notice',
      'quota_remaining_pct',
      'rate_limit_remaining',
      'request_id',
      'truncated',
    ]);
    assert.equal(meta['data_source'], 'simulator');
  });
});

test('paging walks three sessions of 5-minute snapshots, newest first, without gaps or repeats', async () => {
  await withSimulator({}, async (sim) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=60&cursor=${cursor}` : '?limit=60';
      const body = (await get(sim, `/v1/derived/dealer-gex/QQQ/history${query}`)).body as History;
      seen.push(...body.data.map((s) => s.snapshot_at));
      cursor = body._meta.next_cursor;
      pages += 1;
    } while (cursor && pages < 10);
    const instants = seen.map((s) => Date.parse(s));
    assert.deepEqual(
      [...instants].sort((a, b) => b - a),
      instants,
      'newest first',
    );
    assert.equal(new Set(seen).size, seen.length, 'no repeats');
    const sessions = new Set(
      ((await get(sim, '/v1/derived/dealer-gex/QQQ/history?limit=60')).body as History).data.map((s) => s.session_date_et),
    );
    assert.ok(sessions.size >= 1);
    assert.ok(seen.length > 78 * 2 && seen.length <= 78 * 3, `three sessions of 78 five-minute slots at most, got ${seen.length}`);
    const gaps = instants.slice(1).map((t, i) => (instants[i] ?? t) - t);
    assert.ok(gaps.filter((g) => g === 5 * 60_000).length >= seen.length - 3, 'five-minute spacing within sessions');
  });
});

test('a snapshot summary names the levels that matter, taken from its strikes', async () => {
  await withSimulator({}, async (sim) => {
    const snapshot = ((await get(sim, '/v1/derived/dealer-gex/SPY/history?limit=1')).body as History).data[0];
    assert.ok(snapshot);
    const strikes = snapshot.strikes.map((s) => s.strike_usd);
    for (const level of ['king_strike_usd', 'call_wall_strike_usd', 'put_wall_strike_usd'] as const)
      assert.ok(strikes.includes(snapshot.summary[level]), level);
    const king = snapshot.strikes.find((s) => s.strike_usd === snapshot.summary.king_strike_usd);
    assert.equal(king?.rank, 1);
    assert.equal(
      snapshot.summary.total_gex_usd,
      snapshot.strikes.reduce((sum, s) => sum + s.net_gex_usd, 0),
    );
  });
});

test('a broken cursor and a cursor of another ticker are VALIDATION_ERROR', async () => {
  await withSimulator({}, async (sim) => {
    const first = (await get(sim, '/v1/derived/dealer-gex/SPY/history?limit=2')).body as History;
    const cursor = first._meta.next_cursor;
    assert.ok(cursor);
    assert.equal((await get(sim, `/v1/derived/dealer-gex/SPY/history?cursor=${cursor}`)).status, 200);
    assert.equal(envelopeOf(await get(sim, `/v1/derived/dealer-gex/QQQ/history?cursor=${cursor}`)).error.code, 'VALIDATION_ERROR');
    assert.equal(envelopeOf(await get(sim, '/v1/derived/dealer-gex/SPY/history?cursor=not-a-cursor')).error.code, 'VALIDATION_ERROR');
    assert.equal(envelopeOf(await get(sim, '/v1/derived/dealer-gex/SPY/history?cursor=%00%01')).error.code, 'VALIDATION_ERROR');
  });
});

test('the same seed gives the same data', async () => {
  const read = (): Promise<unknown> =>
    withSimulator({ seed: 42 }, async (sim) => ((await get(sim, '/v1/derived/dealer-gex/SPY/history?limit=2')).body as History).data);
  assert.deepEqual(await read(), await read());
});
