/**
 * The tools over several names read a list's tickers by role, not under our own field name:
 * the spec leaves the sector list's and the short screener's payloads open, so an upstream
 * may name the field `symbol`, `tickerSymbol`, `Ticker_Symbol` or `underlying`. Each name,
 * drawn by fast-check, is put in the simulator's answers by a proxy; the sector's names are
 * still found, screened and answered under `ticker`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/client';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';
import { replayPropertySeed } from '../helpers/property-seed.js';
import { startSimProxy } from '../helpers/sim-proxy.js';

replayPropertySeed();

type Row = Record<string, unknown>;

/** Names public APIs give a row's ticker, in the cases they write them. */
const TICKER_NAMES = ['symbol', 'Symbol', 'tickerSymbol', 'ticker_symbol', 'Ticker_Symbol', 'underlying', 'stock', 'TICKER'] as const;
/** Sectors of seven names or more in the simulator. */
const SECTORS = ['Technology', 'Financial Services', 'Consumer Cyclical', 'Communication Services'] as const;
/** The lists whose rows the proxy renames. */
const RENAMED = ['/v1/stocks/sector-tickers', '/v1/shorts/short-screener'];

/** `ticker` renamed to `name` in every row of a JSON answer, however deep. */
function renamed(body: unknown, name: string): unknown {
  if (Array.isArray(body)) return body.map((item) => renamed(item, name));
  if (typeof body !== 'object' || body === null) return body;
  return Object.fromEntries(Object.entries(body).map(([key, value]) => [key === 'ticker' ? name : key, renamed(value, name)]));
}

async function answerOf(client: Client, name: string, args: Row): Promise<{ data: Row[]; meta: Row }> {
  const result = await client.callTool({ name, arguments: args });
  assert.notEqual(result.isError, true, `${name}: ${textOf(result).slice(0, 400)}`);
  return result.structuredContent as { data: Row[]; meta: Row };
}

test("a sector's names are found, screened and answered whatever the upstream calls the ticker field", async () => {
  await withSimulator({ dialect: 'spec', limits: { perWindow: 1000, perIpPerWindow: 1000 } }, async (sim) => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TICKER_NAMES), fc.constantFrom(...SECTORS), async (field, sector) => {
        const proxy = await startSimProxy(sim.url, (path) =>
          RENAMED.some((listed) => path.startsWith(listed)) ? { rewrite: (body) => renamed(body, field) } : {},
        );
        // A server of its own each time: a cached list would hide the name drawn.
        const { client, close } = await connectV2({ baseUrl: proxy.url, key: 'sim-live-key' });
        try {
          const listed = (await answerOf(client, 'stocks_sector_tickers', { sector })).data;
          const names = new Set(listed.map((row) => row[field]));
          assert.ok(names.size >= 5 && !names.has(undefined), `the proxy named the tickers ${field}`);

          const screen = await answerOf(client, 'shorts_sector_screener', { sector, limit: 5 });
          assert.ok(screen.data.length >= 3, `${field}: ${JSON.stringify(screen.meta)}`);
          assert.deepEqual(
            screen.data.filter((row) => !names.has(row['ticker'])),
            [],
            'each row is one of the sector, its ticker answered under `ticker`',
          );

          const dealers = await answerOf(client, 'derived_dealer_gex_compare', { sector });
          assert.ok(dealers.data.length >= 3, `${field}: dealer gamma of the sector's names, ${JSON.stringify(dealers.meta)}`);
          assert.deepEqual(
            dealers.data.filter((row) => !names.has(row['ticker'])),
            [],
          );
        } finally {
          await close();
          await proxy.close();
        }
      }),
      { numRuns: 4, examples: [['tickerSymbol', 'Technology']] },
    );
  });
});
