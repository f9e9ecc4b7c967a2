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

type Briefing = { data: Record<string, unknown>; meta: Record<string, unknown> };

/** GME's briefing, answered (not an error). */
async function briefGme(client: Client): Promise<Briefing> {
  const result = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'GME' } });
  assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
  return result.structuredContent as Briefing;
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
      const answer = await briefGme(client);
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
      const answer = await briefGme(client);
      const notice = String(answer.meta['notice']);
      assert.equal(answer.data['open_interest_change'], undefined);
      assert.equal(answer.data['short_interest'], undefined);
      assert.doesNotMatch(notice, /GME has no/, notice);
      assert.match(
        notice,
        /No open-interest change for GME in the rows read; the upstream holds more( \(meta\.read_on\)|, not reachable from here)\./,
      );
      assert.match(
        notice,
        /No short-interest row for GME in the rows read; the upstream holds more( \(meta\.read_on\)|, not reachable from here)\./,
      );
      assert.equal(answer.meta['truncated'], true, 'the briefing holds only what was read of two parts');
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

/** Vendor's wire form: rows under `items`, the next page's token at the top as `next`. */
type VendorPage = { items: Record<string, unknown>[]; next?: string | null; meta?: Record<string, unknown> };

const notGme = (r: Record<string, unknown>): boolean => r['ticker'] !== 'GME' && r['symbol'] !== 'GME';

test('vendor: an upstream that pages the whole market with no ticker filter, GME on none of the pages read: said missing from them, with calls that read on', async () => {
  // GME is taken out of every open-interest page; the pages still name the next one, so the
  // server reads its 10 pages and stops with more to read, as it does over a real market.
  const withoutGme = (body: unknown): unknown => ({ ...(body as VendorPage), items: (body as VendorPage).items.filter(notGme) });
  await withServer(
    async (sim) => startSimProxy(sim.url, (path) => (path.startsWith('/v1/market/oi-change') ? { rewrite: withoutGme } : {})),
    async (client) => {
      const answer = await briefGme(client);
      const notice = String(answer.meta['notice']);
      assert.equal(answer.data['open_interest_change'], undefined);
      assert.doesNotMatch(notice, /GME has no open-interest/, notice);
      assert.match(notice, /No open-interest change for GME in the rows read; the upstream holds more \(meta\.read_on\)\./);
      // How to read on, as arguments to pass whole: the open-interest part's, and the dark pool's
      // (vendor pages GME's session of prints 25 at a time: the briefing read the newest).
      const readOn = answer.meta['read_on'] as { part: string; tool: string; arguments: Record<string, unknown> }[];
      assert.deepEqual(readOn.map((r) => r.part).sort(), ['dark_pool', 'open_interest'], JSON.stringify(readOn));
      assert.match(notice, /Dark-pool figures are of the \d+ newest prints read; the upstream holds more \(meta\.read_on\)\./);
      const darkPool = answer.data['dark_pool'] as Record<string, unknown>;
      assert.equal(darkPool['complete'], false);
      assert.equal(darkPool['share_of_volume_pct'], undefined, "a share over the newest prints only is not the day's");
      assert.equal(typeof darkPool['share_of_volume_pct_at_least'], 'number');
      // The advice works: each call given reads the pages after those the briefing read.
      for (const { part, tool, arguments: args } of readOn) {
        assert.equal(typeof args['cursor'], 'string', part);
        const next = await client.callTool({ name: tool, arguments: args });
        assert.notEqual(next.isError, true, `${part}: ${textOf(next).slice(0, 300)}`);
        const nextMeta = (next.structuredContent as { meta: Record<string, unknown> }).meta;
        assert.ok(Number(nextMeta['units']) > 0, `${part}, pages not read before: ${JSON.stringify(nextMeta).slice(0, 300)}`);
      }
    },
    'vendor',
  );
});

test('vendor: the same market read to its last page with no GME on it: then, and only then, GME has none', async () => {
  // The first open-interest page is the last (no next token, not truncated) and holds no GME: the read is whole.
  const lastWithoutGme = (body: unknown): unknown => ({
    ...(body as VendorPage),
    items: (body as VendorPage).items.filter(notGme),
    next: null,
    // Vendor's page also says `truncated` of a page with more behind it: not of the last one.
    meta: { ...(body as VendorPage).meta, truncated: false },
  });
  await withServer(
    async (sim) => startSimProxy(sim.url, (path) => (path.startsWith('/v1/market/oi-change') ? { rewrite: lastWithoutGme } : {})),
    async (client) => {
      const answer = await briefGme(client);
      assert.match(String(answer.meta['notice']), /GME has no open-interest change in the session read\./);
    },
    'vendor',
  );
});

test('a narrow key and a name no part it may call knows: one error with the scope refusals, not a briefing of the name alone', async () => {
  // Our dialect filters open-interest changes by ticker upstream, so the one part the key may
  // call is read whole (where it is read only in part, the briefing says how to read on instead: the vendor tests above).
  await withSimulator({ materializationMs: 0, limits: { perWindow: 1000, perIpPerWindow: 1000 }, dialect: 'spec' }, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-narrow-key' });
    try {
      const result = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'ZZZZ' } });
      assert.equal(result.isError, true, `an error, not {ticker} alone: ${textOf(result).slice(0, 300)}`);
      const error = errorOf(result);
      assert.equal(error.code, 'SCOPE_INSUFFICIENT');
      assert.match(error.message, /^Nothing for ZZZZ; ZZZZ has no open-interest change in the session read; the other parts failed \(/);
      // And a name it knows: the part the key may call, and a covers that names no part that failed.
      const known = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'GME' } });
      assert.notEqual(known.isError, true, textOf(known).slice(0, 300));
      const meta = (known.structuredContent as { meta: Record<string, unknown> }).meta;
      assert.equal(meta['covers'], 'GME', 'dark pool and short volume failed for this key: not said covered');
    } finally {
      await close();
    }
  });
});

test('an upstream that sends numbers as text: the briefing and the sector screener answer numbers', async () => {
  // Our own wire form with every number of the screener and the anomaly sent as text.
  const asText = (value: unknown): unknown =>
    typeof value === 'number'
      ? String(value)
      : Array.isArray(value)
        ? value.map(asText)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === '_meta' ? v : asText(v)]))
          : value;
  const textual = (path: string): boolean => path.startsWith('/v1/shorts/short-screener') || path.startsWith('/v1/volatility/');
  await withServer(
    async (sim) => startSimProxy(sim.url, (path) => (textual(path) ? { rewrite: asText } : {})),
    async (client) => {
      const result = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'GME' } });
      assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
      const data = (result.structuredContent as { data: Record<string, Record<string, unknown>> }).data;
      assert.equal(typeof data['short_interest']?.['short_float_pct'], 'number', JSON.stringify(data['short_interest']));
      assert.equal(typeof data['iv_rank']?.['iv30'], 'number', JSON.stringify(data['iv_rank']));
      const screen = await client.callTool({ name: 'shorts_sector_screener', arguments: { sector: 'Technology', limit: 3 } });
      const rows = (screen.structuredContent as { data: Record<string, unknown>[] }).data;
      assert.ok(rows.length > 0);
      for (const row of rows) assert.equal(typeof row['short_float_pct'], 'number', JSON.stringify(row));
    },
    'spec',
  );
});
