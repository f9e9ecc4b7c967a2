/**
 * What the tools over several names say a call costs (their descriptions, and api_status's
 * `costs`) against what the upstream charged for a few calls: a new-user trial saw
 * volatility_compare say "1 unit per ticker and measure" and spend 21 on sector=Technology
 * (the sector lookup besides), and api_status not list it. Each call on a server of its own
 * (a fresh cache: nothing served from an earlier call), against the simulator.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';

type Row = Record<string, unknown>;
const FAN_OUTS = ['volatility_compare', 'derived_dealer_gex_compare', 'shorts_sector_screener', 'ticker_briefing'];

/** A server of its own over the simulator for `run`. */
async function fresh<T>(sim: RunningSimulator, run: (client: Client) => Promise<T>): Promise<T> {
  const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
  try {
    return await run(client);
  } finally {
    await close();
  }
}

/** One call on a fresh server: its answer, the units its meta says and the requests the upstream charged. */
async function charged(sim: RunningSimulator, name: string, args: Row): Promise<{ answer: { data: unknown; meta: Row }; charged: number }> {
  return fresh(sim, async (client) => {
    const before = sim.api.requests.length;
    const result = await client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, `${name}: ${textOf(result).slice(0, 300)}`);
    const answer = result.structuredContent as { data: unknown; meta: Row };
    const spent = sim.api.requests.slice(before).filter((r) => r.charged).length;
    assert.equal(answer.meta['units'], spent, `${name} ${JSON.stringify(args)}: meta.units against the upstream's count`);
    return { answer, charged: spent };
  });
}

test('each tool over several names states its cost in its description and in api_status alike', async () => {
  await withSimulator({ materializationMs: 0, limits: { perWindow: 1000, perIpPerWindow: 1000 } }, (sim) =>
    fresh(sim, async (client) => {
      const { tools } = await client.listTools();
      const status = await client.callTool({ name: 'api_status', arguments: { details: true } });
      const costs = (status.structuredContent as { costs: Record<string, string> }).costs;
      for (const name of FAN_OUTS) {
        const description = tools.find((t) => t.name === name)?.description ?? '';
        const stated = /Cost: (.*)$/.exec(description)?.[1];
        assert.ok(stated, `${name}: a cost in its description: ${description}`);
        assert.equal(costs[name], stated, `${name}: api_status's costs as the description states it`);
      }
    }),
  );
});

test('volatility_compare spends what it states: 1 a ticker and measure, 1 more for a sector', async () => {
  await withSimulator({ materializationMs: 0, limits: { perWindow: 1000, perIpPerWindow: 1000 } }, async (sim) => {
    const description = await fresh(
      sim,
      async (client) => (await client.listTools()).tools.find((t) => t.name === 'volatility_compare')?.description,
    );
    assert.match(description ?? '', /1 request a ticker and measure \(both: 2\); 1 more for a sector\./);
    assert.equal((await charged(sim, 'volatility_compare', { tickers: 'AAPL,MSFT', measure: 'skew' })).charged, 2);
    assert.equal((await charged(sim, 'volatility_compare', { tickers: 'AAPL,MSFT' })).charged, 4);
    const sector = await charged(sim, 'volatility_compare', { sector: 'Technology' });
    const names = (sector.answer.data as Row[]).length;
    assert.equal(names, 10, 'the 10 largest of the sector');
    assert.equal(sector.charged, 2 * names + 1, 'both measures of each name, and the sector lookup');
  });
});

test('the dealer compare, the sector screener and the briefing spend what they state', async () => {
  await withSimulator({ materializationMs: 0, limits: { perWindow: 1000, perIpPerWindow: 1000 } }, async (sim) => {
    const described = await fresh(sim, async (client) =>
      Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.description ?? ''])),
    );
    // Dealer compare: 1 request a ticker for the newest snapshot, 1 more for a sector's names.
    assert.match(described['derived_dealer_gex_compare'] ?? '', /Cost: 1 request a ticker,.*1 more for a sector\./);
    assert.equal((await charged(sim, 'derived_dealer_gex_compare', { tickers: 'SPY,QQQ' })).charged, 2);
    const sector = await charged(sim, 'derived_dealer_gex_compare', { sector: 'Technology' });
    const asked = (sector.answer.data as Row[]).length + ((sector.answer as { failed?: unknown[] }).failed?.length ?? 0);
    assert.equal(sector.charged, asked + 1);
    // Where the screener filters by tickers upstream: 1 request + 1 per 10 names screened.
    if (/Cost: 1 request \+ 1 per 10 names\./.test(described['shorts_sector_screener'] ?? '')) {
      const screen = await charged(sim, 'shorts_sector_screener', { sector: 'Technology' });
      const screened = Number(/(\d+) names screened/.exec(String(screen.answer.meta['covers']))?.[1]);
      assert.equal(screen.charged, 1 + Math.ceil(screened / 10), String(screen.answer.meta['covers']));
    }
    if (/^Cost: 5 requests/m.test((described['ticker_briefing'] ?? '').replace(/^.*\. (?=Cost:)/, '')))
      assert.ok((await charged(sim, 'ticker_briefing', { ticker: 'GME' })).charged >= 5);
  });
});
