/**
 * Inputs as hosts really send them, through the built binary: OpenAI strict-mode nulls,
 * Gemini CLI's control property, type confusion, prototype keys, oversize and broken
 * strings. Every refusal names the fix and reaches no upstream.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { generalTicker, type DatasetDefinition } from '../../src/catalog/index.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';

/** A dataset registered upstream whose query parameter is named like a prototype property. */
const CONSTRUCTOR_PARAM: DatasetDefinition = {
  operationId: 'etf.constituents',
  path: '/v1/etf/constituents/{ticker}',
  title: 'ETF constituents',
  description: 'Constituents of one ETF.',
  ticker: generalTicker,
  query: { constructor: z.enum(['cap', 'equal']).describe('Weighting scheme of the index.').optional() },
  onDemand: false,
  cacheClass: 'daily',
};

/** Matches a hint that names exactly these parameters, in whatever order the tool lists them. */
function acceptedExactly(names: string[], before = ''): RegExp {
  const each = names.map((name) => `(?=[^.]*\\b${name}\\b)`).join('');
  return new RegExp(`${before}Accepted parameters: ${each}(?:[a-z_]+(?:, |\\.)){${names.length}}(?![a-z_])`);
}

function dataRequests(sim: RunningSimulator): { path: string; status: number }[] {
  return sim.api.requests.filter((r) => !r.path.startsWith('/v1/openapi'));
}

test('inputs as hosts send them: nulls, control properties, missing and unknown names, types, caps, prototype keys', async () => {
  await withSimulator({ extraDatasets: [CONSTRUCTOR_PARAM] }, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-admin-key' });
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
    try {
      // OpenAI strict mode sends null for every optional property: null means omitted.
      const nulls = await call('derived_dealer_gex_history', { ticker: 'SPY', view: null, session_date: null, limit: null, cursor: null });
      assert.notEqual(nulls.isError, true, textOf(nulls));
      assert.equal((nulls.structuredContent as { data: unknown[] }).data.length, 1, 'the default view applies: the newest snapshot');
      const nullFields = await call('shorts_short_screener', { limit: 2, min_short_float_pct: null, format: null, fields: null });
      assert.notEqual(nullFields.isError, true, textOf(nullFields));

      // Gemini CLI adds wait_for_previous to every tool and forwards it: dropped, not refused.
      const gemini = await call('stocks_dividends', { ticker: 'SPY', wait_for_previous: true });
      assert.notEqual(gemini.isError, true, textOf(gemini));
      const sent = dataRequests(sim);
      assert.ok(sent.length > 0 && sent.every((r) => !r.path.includes('wait_for_previous')), 'the control property never reaches the API');

      // The hint names exactly what the tool advertises: ours (limit, cursor, fields) and what the
      // upstream's document adds (a composed dialect's own filters), whatever the dialect.
      const listed = (await client.listTools()).tools;
      const advertised = (tool: string, ours: string[]): string[] => {
        const names = Object.keys(listed.find((t) => t.name === tool)?.inputSchema.properties ?? {});
        for (const name of ours) assert.ok(names.includes(name), `${tool} takes ${name}`);
        return names;
      };
      /** The JSON type a tool's ticker list takes, as advertised. */
      const listTakes = (tool: string): unknown =>
        (listed.find((t) => t.name === tool)?.inputSchema.properties as Record<string, { type?: unknown }> | undefined)?.['tickers']?.type;
      const before = dataRequests(sim).length;
      const refused: (readonly [string, string, Record<string, unknown>, string, RegExp])[] = [
        ['a missing ticker names it', 'stocks_dividends', {}, 'VALIDATION_ERROR', /Missing required parameter "ticker"/],
        [
          'a null ticker is a missing ticker',
          'stocks_dividends',
          { ticker: null },
          'VALIDATION_ERROR',
          /Missing required parameter "ticker"/,
        ],
        [
          'the unknown-parameter hint lists ticker, query parameters and fields',
          'stocks_dividends',
          { ticker: 'SPY', colour: 'red' },
          'VALIDATION_ERROR',
          // In any order: an upstream that takes no page size lists its cursor first, our limit after.
          acceptedExactly(advertised('stocks_dividends', ['ticker', 'limit', 'cursor', 'fields'])),
        ],
        [
          'a ticker on a market-wide dataset is refused, not dropped',
          'market_total_options_volume',
          { ticker: 'SPY' },
          'VALIDATION_ERROR',
          acceptedExactly(
            advertised('market_total_options_volume', ['from', 'to', 'limit', 'cursor', 'fields']),
            '"ticker" does not apply.*market-wide.*',
          ),
        ],
        ['true is not a limit', 'shorts_short_screener', { limit: true }, 'VALIDATION_ERROR', /expected an integer/],
        ['hex text is not a limit', 'shorts_short_screener', { limit: '0x10' }, 'VALIDATION_ERROR', /expected an integer/],
        ['a list is not a limit', 'shorts_short_screener', { limit: [5] }, 'VALIDATION_ERROR', /expected an integer/],
        ['a number is not a ticker', 'stocks_dividends', { ticker: 5 }, 'TICKER_INVALID', /expected a string/],
        // A ticker list is one comma-separated text in our document; a document may state it as an
        // array, which the tool then takes (a JSON list is its form, checked item by item).
        ...(listTakes('congress_recent_trades') === 'string'
          ? ([
              [
                'a JSON list where a comma-separated text is due: told the one text to send',
                'congress_recent_trades',
                { tickers: ['NVDA', 'AAPL'] },
                'TICKER_INVALID',
                /expected a string.*one comma-separated text: \\?"NVDA,AAPL\\?"/,
              ],
              [
                'a lower-case JSON list: the text offered is one the tool takes',
                'congress_recent_trades',
                { tickers: ['nvda', 'aapl'] },
                'TICKER_INVALID',
                /one comma-separated text: \\?"NVDA,AAPL\\?"/,
              ],
            ] as const)
          : ([
              [
                'a lower-case list: the fix offered is one the tool takes',
                'congress_recent_trades',
                { tickers: ['nvda', 'aapl'] },
                'TICKER_INVALID',
                /Use \\?"NVDA,AAPL\\?"/,
              ],
            ] as const)),
        [
          'a JSON list the tool would refuse as text too: no such text is offered',
          'market_correlations',
          { tickers: ['SPY'] },
          'TICKER_INVALID',
          listTakes('market_correlations') === 'string' ? /not a JSON list\. "tickers": 2 to 10/ : /"tickers": 2 to 10/,
        ],
        [
          'a JSON list for one value of an enum',
          'congress_recent_trades',
          { side: ['buy', 'sell'] },
          'VALIDATION_ERROR',
          /not a JSON list.*buy, sell/,
        ],
        ['semicolons in a ticker filter', 'congress_recent_trades', { tickers: 'NVDA;AAPL' }, 'TICKER_INVALID', /Use \\?"NVDA,AAPL\\?"/],
        ['one lower-case ticker in a filter', 'congress_recent_trades', { tickers: 'nvda' }, 'TICKER_INVALID', /Use \\?"NVDA\\?"/],
        ['a 1 MB ticker', 'stocks_dividends', { ticker: 'A'.repeat(1 << 20) }, 'TICKER_INVALID', /too long \(1048576 characters\)/],
        ['a lone surrogate in a ticker', 'stocks_dividends', { ticker: 'SP\uD800Y' }, 'TICKER_INVALID', /not well-formed/],
        [
          'constructor by name',
          'stocks_dividends',
          { ticker: 'SPY', constructor: 'x' },
          'VALIDATION_ERROR',
          /"constructor" is not allowed/,
        ],
        ['toString by name', 'market_oi_change', { toString: 'x' }, 'VALIDATION_ERROR', /"toString" is not allowed/],
      ];
      for (const [what, name, args, code, text] of refused) {
        const result = await call(name, args);
        const error = errorOf(result);
        assert.equal(error.code, code, what);
        assert.equal(error.action, 'fix_input', what);
        assert.match(textOf(result), text, what);
        assert.ok(textOf(result).length < 1000, `${what}: nothing huge echoed`);
      }
      assert.equal(dataRequests(sim).length, before, 'no refused input reached the API');
      if (listTakes('congress_recent_trades') === 'array') {
        const list = await call('congress_recent_trades', { tickers: ['NVDA', 'AAPL'] });
        assert.notEqual(list.isError, true, `a JSON list is the form this document's ticker list takes: ${textOf(list).slice(0, 300)}`);
      }

      // A dataset whose parameter is named `constructor` still works, with and without it.
      const bare = await call('etf_constituents', { ticker: 'SPY' });
      assert.notEqual(bare.isError, true, textOf(bare));
      const weighted = await call('etf_constituents', { ticker: 'SPY', constructor: 'equal' });
      assert.notEqual(weighted.isError, true, textOf(weighted));
      assert.ok(dataRequests(sim).some((r) => r.path === '/v1/etf/constituents/SPY'));
    } finally {
      await close();
    }
  });
});

test('unknown names in fields are reported beside valid ones, and refused before any request once the rows are known', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-admin-key' });
    try {
      const mixed = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 3, fields: ['ticker', 'shorts_pct'] } });
      assert.notEqual(mixed.isError, true, textOf(mixed));
      const { data, meta } = mixed.structuredContent as { data: Record<string, unknown>[]; meta: { notice?: string } };
      for (const row of data) assert.deepEqual(Object.keys(row), ['ticker']);
      assert.match(meta.notice ?? '', /left out: shorts_pct\. Fields available: .*short_float_pct/);

      const before = dataRequests(sim).length;
      const unknown = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 4, fields: ['shorts_pct'] } });
      const error = errorOf(unknown);
      assert.equal(error.code, 'VALIDATION_ERROR');
      assert.match(error.hint ?? '', /Fields available: .*short_float_pct/);
      assert.match(textOf(unknown), /nothing was charged/);
      assert.equal(dataRequests(sim).length, before, 'refused before any request: no unit charged');

      const sentBefore = dataRequests(sim).length;
      const first = await client.callTool({ name: 'congress_recent_trades', arguments: { fields: ['shorts_pct'] } });
      assert.equal(errorOf(first).code, 'VALIDATION_ERROR');
      if (sim.api.dialect.traits.responses === 'described') {
        // The upstream's document lists the rows' fields: refused before the first request.
        assert.match(errorOf(first).hint ?? '', /Fields available: .*traded_on/);
        assert.match(textOf(first), /nothing was charged/);
        assert.equal(dataRequests(sim).length, sentBefore, 'refused from the document: no unit charged');
      } else {
        // First call of a dataset naming no field it has: the rows were fetched, so no claim that nothing was charged.
        assert.match(errorOf(first).hint ?? '', /asking again with these names is free/);
        assert.doesNotMatch(textOf(first), /nothing was charged/);
      }
    } finally {
      await close();
    }
  });
});
