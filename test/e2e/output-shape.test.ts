/**
 * The dealer tool declares an output schema, and both SDK clients check every result
 * against it. An API that adds a field (it may: the spec does not close its objects) must
 * not make them refuse the answer; an API that breaks a documented field must come back
 * as a readable tool error with its code, not as a bare protocol error.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { get, withSimulator } from '../helpers/http.js';
import { connectV1, connectV2, errorOf, textOf } from '../helpers/mcp.js';
import { dealerPageQuery, readPage, servedDataset } from '../helpers/upstream.js';

interface Snapshot {
  summary: Record<string, unknown>;
  strikes: Record<string, unknown>[];
}

interface CallResult {
  isError?: unknown;
  content?: unknown;
  structuredContent?: unknown;
}

/** The snapshots of a page in whatever wrapper the simulator's dialect puts them (the same objects, to edit in place). */
function snapshotsIn(sim: RunningSimulator, page: unknown): Snapshot[] {
  const rows = readPage(sim.api.dialect, servedDataset(sim, '/v1/derived/dealer-gex/{ticker}/history'), page).payload;
  assert.ok(Array.isArray(rows) && rows.length > 0, 'the page holds snapshots');
  return rows as unknown as Snapshot[];
}

test('fields the API adds inside a dealer snapshot reach both SDK clients; a broken documented field is RESPONSE_INVALID', async () => {
  await withSimulator({}, async (sim) => {
    // A page as the upstream serves it, in its own dialect: its parameter names and wrapper.
    const page = (await get(sim, `/v1/derived/dealer-gex/SPY/history?${dealerPageQuery(sim.api.dialect, undefined, 6)}`)).body;
    const extended = structuredClone(page);
    for (const snapshot of snapshotsIn(sim, extended)) {
      snapshot.summary['zero_gamma_usd'] = 600.5;
      for (const strike of snapshot.strikes) strike['open_interest'] = 1200;
    }
    const broken = structuredClone(page);
    for (const snapshot of snapshotsIn(sim, broken)) snapshot.summary['gamma_flip_usd'] = null;

    // A new server process per call: the answers share one upstream request, which the cache would keep.
    const call = async (connect: typeof connectV1 | typeof connectV2, body: unknown): Promise<CallResult> => {
      const { client, close } = await connect({ baseUrl: sim.url, key: 'sim-live-key' });
      try {
        sim.api.faults.inject({ kind: 'raw', status: 200, body: JSON.stringify(body), contentType: 'application/json' }, 3);
        // The SDK clients validate structuredContent against the declared output schema: a refusal throws here.
        return (await client.callTool({
          name: 'derived_dealer_gex_history',
          arguments: { ticker: 'SPY', view: 'full', limit: 2 },
        })) as CallResult;
      } finally {
        sim.api.faults.clear();
        await close();
      }
    };
    for (const connect of [connectV1, connectV2]) {
      const added = await call(connect, extended);
      assert.notEqual(added.isError, true, `${connect.name}: ${textOf(added).slice(0, 300)}`);

      const error = errorOf(await call(connect, broken));
      assert.equal(error.code, 'RESPONSE_INVALID', connect.name);
      assert.match(error.message, /gamma_flip_usd/, `${connect.name}: the message names the broken field`);
      assert.ok(error.hint, `${connect.name}: and says what to do`);
    }
  });
});
