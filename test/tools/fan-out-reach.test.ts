/**
 * A narrow key and the tools over several datasets (volatility_compare, dealer compare,
 * the sector screener, the briefing): once discover (free) has answered, one whose parts
 * the key can call none of says "Not for this key" as a dataset tool does, one it can call
 * in part says which parts its answers leave out, and a call discover says would be
 * refused is refused before anything is sent (the sector screener bought the sector's
 * names first). While the key's scope is unknown nothing is marked and nothing refused
 * here. In memory, against the simulator's keys.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createLiveServer } from '../../src/mcp/server.js';
import { createRuntime } from '../../src/runtime.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { standardScopes } from '../../src/simulator/accounts.js';
import { withSimulator } from '../helpers/http.js';
import { errorOf, freshCacheDir, textOf } from '../helpers/mcp.js';

const FAN_OUTS = ['derived_dealer_gex_compare', 'shorts_sector_screener', 'ticker_briefing', 'volatility_compare'];

/** A server over the simulator with `key`, connected in memory as a host would be. */
async function withKey(key: string, run: (client: Client, sim: RunningSimulator) => Promise<void>, sim: RunningSimulator): Promise<void> {
  const runtime = await createRuntime({
    MARKET_DATA_BASE_URL: sim.url,
    MARKET_DATA_API_KEY: key,
    MARKET_DATA_LOG_LEVEL: 'silent',
    MARKET_DATA_CACHE_DIR: freshCacheDir(),
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const live = createLiveServer(runtime.deps);
  const client = new Client({ name: 't', version: '1' });
  try {
    await live.server.connect(serverTransport);
    await client.connect(clientTransport);
    await run(client, sim);
  } finally {
    live.stop();
    await client.close();
    await runtime.close();
  }
}

/** Each tool over several datasets by its description. */
async function described(client: Client): Promise<Record<string, string>> {
  const { tools } = await client.listTools();
  return Object.fromEntries(tools.filter((t) => FAN_OUTS.includes(t.name)).map((t) => [t.name, t.description ?? '']));
}

/** api_status asked: discover answers (free), and the server knows the key's scope from then on. */
async function askStatus(
  client: Client,
  details = false,
): Promise<{ summary: string; cannot_use: Record<string, string[]>; partly_usable?: Record<string, string> }> {
  const status = await client.callTool({ name: 'api_status', arguments: { details } });
  return status.structuredContent as { summary: string; cannot_use: Record<string, string[]>; partly_usable?: Record<string, string> };
}

test('a narrow key: tools over several datasets it can call none of say "Not for this key", the briefing names the parts it leaves out; nothing before discover', async () => {
  await withSimulator({}, (sim) =>
    withKey(
      'sim-narrow-key',
      async (client) => {
        const before = await described(client);
        assert.deepEqual(Object.keys(before).sort(), FAN_OUTS, 'scope unknown: every one listed, none hidden');
        for (const [name, text] of Object.entries(before)) assert.doesNotMatch(text, /for this key/, `${name}, scope unknown: not marked`);

        await askStatus(client);
        const after = await described(client);
        // The narrow key holds read:market, read:stocks and read:macro only.
        assert.match(
          after['derived_dealer_gex_compare'] ?? '',
          /^Not for this key \(discover: lacks read:derived\): calls answer SCOPE_INSUFFICIENT\./,
        );
        assert.match(
          after['volatility_compare'] ?? '',
          /^Not for this key \(discover: lacks read:volatility\): calls answer SCOPE_INSUFFICIENT\./,
        );
        assert.match(
          after['shorts_sector_screener'] ?? '',
          /^Not for this key \(discover: lacks read:shorts\): calls answer SCOPE_INSUFFICIENT\./,
        );
        const briefing = after['ticker_briefing'] ?? '';
        assert.match(
          briefing,
          /^Partly for this key \(discover: lacks read:shorts, read:darkpool and read:volatility\): its answers leave out short_interest, short_volume, dark_pool and iv_rank \(listed in failed\)\. One name's squeeze check/,
        );

        // What the briefing's description says is what its answer does: the part the key holds, the others in failed.
        const result = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'AAPL' } });
        assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
        const answer = result.structuredContent as { data: Record<string, unknown>; failed: { part: string; error: { code: string } }[] };
        assert.ok('open_interest_change' in answer.data, JSON.stringify(answer.data).slice(0, 300));
        assert.deepEqual(answer.failed.map((f) => f.part).sort(), ['dark_pool', 'iv_rank', 'short_interest', 'short_volume']);
        assert.deepEqual([...new Set(answer.failed.map((f) => f.error.code))], ['SCOPE_INSUFFICIENT']);

        // api_status names the same tools as unusable: the marks and its list agree.
        const status = await askStatus(client, true);
        const details = Object.values(status.cannot_use).flat();
        for (const name of ['derived_dealer_gex_compare', 'shorts_sector_screener', 'volatility_compare'])
          assert.ok(details.includes(name), name);
        assert.ok(!details.includes('ticker_briefing'), 'the briefing answers in part: not unusable');
        // ...and the briefing as usable in part: named in the default summary, in its description's words with details.
        assert.deepEqual(Object.keys(status.partly_usable ?? {}), ['ticker_briefing'], JSON.stringify(status.partly_usable));
        assert.equal(
          status.partly_usable?.['ticker_briefing'],
          'lacks read:shorts, read:darkpool and read:volatility: its answers leave out short_interest, short_volume, dark_pool and iv_rank (listed in failed)',
        );
        assert.match(status.summary, /Partly usable: ticker_briefing \(see partly_usable\)\./);
        const compact = await askStatus(client);
        assert.match(compact.summary, /Partly usable: ticker_briefing\./);
      },
      sim,
    ),
  );
});

test('a key without read:stocks: the sector screener is not for it, the tools that take tickers or a sector say a sector is refused', async () => {
  await withSimulator({}, async (sim) => {
    const key = sim.api.book.createKey(
      'acct_live',
      standardScopes().filter((s) => s !== 'read:stocks'),
    );
    await withKey(
      key,
      async (client) => {
        await askStatus(client);
        const after = await described(client);
        assert.match(after['shorts_sector_screener'] ?? '', /^Not for this key \(discover: lacks read:stocks\)/);
        for (const name of ['derived_dealer_gex_compare', 'volatility_compare'])
          assert.match(
            after[name] ?? '',
            /^Partly for this key \(discover: lacks read:stocks\): a call with sector= answers SCOPE_INSUFFICIENT\. /,
            name,
          );
        assert.doesNotMatch(after['ticker_briefing'] ?? '', /for this key/, 'every part of the briefing is there for it');
        // The compact list names the screener itself: the key holds read:shorts, so shorts_* would say too much.
        const status = await askStatus(client, true);
        const compact = Object.values((await askStatus(client)).cannot_use).flat();
        assert.ok(compact.includes('shorts_sector_screener'), JSON.stringify(compact));
        assert.ok(!compact.includes('shorts_*'), JSON.stringify(compact));
        // The compares answer names given as tickers, not a sector: usable in part, and said so.
        assert.deepEqual(Object.keys(status.partly_usable ?? {}).sort(), ['derived_dealer_gex_compare', 'volatility_compare']);
        for (const said of Object.values(status.partly_usable ?? {}))
          assert.equal(said, 'lacks read:stocks: a call with sector= answers SCOPE_INSUFFICIENT');
      },
      sim,
    );
  });
});

test('once discover says the key cannot call what a call needs, the sector screener and the sector calls answer SCOPE_INSUFFICIENT and the upstream sees no request', async () => {
  await withSimulator({}, (sim) =>
    withKey(
      'sim-narrow-key',
      async (client) => {
        await askStatus(client);
        const calls: [string, Record<string, unknown>, RegExp][] = [
          ['shorts_sector_screener', { sector: 'Technology' }, /shorts_short_screener/],
          ['derived_dealer_gex_compare', { sector: 'Technology' }, /derived_dealer_gex_history/],
          ['volatility_compare', { sector: 'Technology' }, /volatility_risk_reversal_skew and volatility_anomaly/],
          ['volatility_compare', { sector: 'Technology', measure: 'skew' }, /volatility_risk_reversal_skew/],
        ];
        for (const [name, args, lacking] of calls) {
          const seen = sim.api.requests.length;
          const error = errorOf(await client.callTool({ name, arguments: args }));
          assert.deepEqual(
            sim.api.requests.slice(seen).map((r) => r.path),
            [],
            `${name}: refused before any request`,
          );
          assert.equal(error.code, 'SCOPE_INSUFFICIENT', `${name}: ${JSON.stringify(error)}`);
          assert.match(error.message, lacking, name);
          assert.match(error.message, /nothing was sent/, name);
          assert.match(error.hint ?? '', /lacks read:/, name);
        }
      },
      sim,
    ),
  );
});

test("a call refused before any request names every scope the key lacks for it, not only the first part's", async () => {
  await withSimulator({}, async (sim) => {
    const lacking = ['read:shorts', 'read:market', 'read:darkpool', 'read:volatility'];
    const key = sim.api.book.createKey(
      'acct_live',
      standardScopes().filter((s) => !lacking.includes(s)),
    );
    await withKey(
      key,
      async (client) => {
        await askStatus(client);
        const seen = sim.api.requests.length;
        const error = errorOf(await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'AAPL' } }));
        assert.equal(error.code, 'SCOPE_INSUFFICIENT', JSON.stringify(error));
        assert.equal(sim.api.requests.length, seen, 'nothing sent');
        for (const scope of lacking) assert.match(error.hint ?? '', new RegExp(scope), `${scope} in ${error.hint}`);
      },
      sim,
    );
  });
});
