/**
 * `ticker_briefing` for a symbol no dataset knows (a new-user trial asked ZZZZ): one
 * NOT_FOUND error naming it, with the guidance of any NOT_FOUND, not a briefing whose
 * only section is open-interest sums of zero over no rows and a notice about funds and
 * indices. A known name with no open-interest rows gets no sums of zero either. Through
 * the built server against the simulator.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';
import { startSimProxy } from '../helpers/sim-proxy.js';

async function withServer(
  url: (sim: RunningSimulator) => { url: string; close?: () => Promise<void> } | Promise<{ url: string; close?: () => Promise<void> }>,
  run: (client: Client) => Promise<void>,
  dialect?: string,
): Promise<void> {
  await withSimulator(
    { materializationMs: 0, limits: { perWindow: 1000, perIpPerWindow: 1000 }, ...(dialect ? { dialect } : {}) },
    async (sim) => {
      const upstream = await url(sim);
      const { client, close } = await connectV2({ baseUrl: upstream.url, key: 'sim-live-key' });
      try {
        await run(client);
      } finally {
        await close();
        await upstream.close?.();
      }
    },
  );
}

/** The same answer with every list in it empty: no rows, in whatever wrapper the dialect gives them. */
function emptied(value: unknown): unknown {
  if (Array.isArray(value)) return [];
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, emptied(inner)]));
}

test('a briefing of a ticker no part knows is one NOT_FOUND naming it, with no zeros and no word of funds', async () => {
  await withServer(
    (sim) => ({ url: sim.url }),
    async (client) => {
      const result = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'ZZZZ' } });
      assert.equal(result.isError, true, `an error, not a briefing: ${textOf(result).slice(0, 300)}`);
      const error = errorOf(result);
      assert.equal(error.code, 'NOT_FOUND');
      assert.equal(error.action, 'do_not_retry');
      assert.equal(error.recoverable, false);
      assert.match(error.message, /^ZZZZ: /);
      assert.match(error.hint ?? '', /check the symbol/);
      assert.doesNotMatch(textOf(result), /funds and indices|net_call_change/);
    },
  );
});

test('a known name whose open-interest part answers no rows: no section of zero sums, a notice instead', async () => {
  // The open-interest changes answer with no rows; the other parts answer as usual.
  await withServer(
    async (sim) => startSimProxy(sim.url, (path) => (path.startsWith('/v1/market/oi-change') ? { rewrite: emptied } : {})),
    async (client) => {
      const result = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'GME' } });
      assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
      const answer = result.structuredContent as { data: Record<string, unknown>; meta: Record<string, unknown> };
      assert.ok(answer.data['short_volume'], 'the other parts are there');
      assert.equal(answer.data['open_interest_change'], undefined, JSON.stringify(answer.data['open_interest_change']));
      assert.match(String(answer.meta['notice']), /GME has no open-interest change/);
    },
    // The rewrite empties the lists of the wire form it knows, ours: an upstream whose answer
    // still names a next page (vendor's top-level `next`) would be read as one with more rows.
    'spec',
  );
});

/** The same answer with no rows, saying more rows follow (a next cursor and has_more), as an upstream that pages past them would. */
function emptiedWithMore(value: unknown): unknown {
  const body = emptied(value) as { _meta?: Record<string, unknown> };
  return { ...body, _meta: { ...body._meta, next_cursor: 'c2', has_more: true } };
}

test('a part read only in part, with no row for the name, says so: never that the name has none', async () => {
  // Short interest and open-interest changes answer a first page without GME and say more follow:
  // the briefing read a part of each, so "GME has no ..." would claim what the upstream never showed.
  const partial = (path: string): boolean => path.startsWith('/v1/market/oi-change') || path.startsWith('/v1/shorts/short-screener');
  await withServer(
    async (sim) => startSimProxy(sim.url, (path) => (partial(path) ? { rewrite: emptiedWithMore } : {})),
    async (client) => {
      const result = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'GME' } });
      assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
      const answer = result.structuredContent as { data: Record<string, unknown>; meta: Record<string, unknown> };
      const notice = String(answer.meta['notice']);
      assert.equal(answer.data['open_interest_change'], undefined);
      assert.equal(answer.data['short_interest'], undefined);
      assert.doesNotMatch(notice, /GME has no/, notice);
      assert.match(notice, /No open-interest change for GME in the rows read; the upstream holds more.*market_oi_change with tickers=GME/);
      assert.match(
        notice,
        /No short-interest row for GME in the rows read; the upstream holds more.*shorts_short_screener with tickers=GME/,
      );
    },
    // "More follow" is written into our wire form's `_meta`: the rewrite knows no other.
    'spec',
  );
});

test('open-interest sums over a part of the contracts are marked incomplete; over all of them, complete', async () => {
  const withMore = (value: unknown): unknown => {
    const body = value as { _meta?: Record<string, unknown> };
    return { ...body, _meta: { ...body._meta, next_cursor: 'c2', has_more: true } };
  };
  for (const [rewrite, complete] of [
    [withMore, false],
    [undefined, true],
  ] as const) {
    await withServer(
      async (sim) => startSimProxy(sim.url, (path) => (rewrite && path.startsWith('/v1/market/oi-change') ? { rewrite } : {})),
      async (client) => {
        const result = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'GME' } });
        const answer = result.structuredContent as { data: Record<string, Record<string, unknown> | undefined> };
        const oi = answer.data['open_interest_change'];
        assert.ok(oi, `GME has open-interest rows in the simulator: ${textOf(result).slice(0, 300)}`);
        assert.equal(oi['complete'], complete, JSON.stringify(oi));
      },
      'spec',
    );
  }
});
