/**
 * A row filter over rows an upstream cut at the call's `limit`, through the built binary:
 * where fewer rows match than were read, more_rows says the limit counted rows before the
 * filter and how to get more; the notice names each filter once, whatever does the filtering.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DIALECT_NAMES } from '../../src/simulator/dialect.js';
import { withSimulator } from '../helpers/http.js';
import { connectV1, textOf } from '../helpers/mcp.js';

const KEY = 'sim-admin-key';
const ROOMY = { limits: { perWindow: 100_000, perIpPerWindow: 100_000 } };

for (const dialect of DIALECT_NAMES) {
  test(`${dialect}: a filter over limited rows says what the limit counted, and names each filter once`, async () => {
    await withSimulator({ ...ROOMY, dialect }, async (sim) => {
      const server = await connectV1({ baseUrl: sim.url, key: KEY });
      try {
        const cases: [string, Record<string, unknown>, string][] = [
          ['market_oi_change', { direction: 'decrease', limit: 5 }, 'direction='],
          ['stocks_lit_trades_recent', { tickers: 'AAPL,TSLA', limit: 5 }, 'tickers='],
          // vendor: tickers both a local parameter and a row filter of the tool's own
          ['congress_recent_trades', { tickers: 'AAPL,MSFT,NVDA', side: 'buy' }, 'tickers='],
        ];
        for (const [name, args, filterWord] of cases) {
          const result = await server.client.callTool({ name, arguments: args });
          assert.notEqual(result.isError, true, textOf(result as never).slice(0, 300));
          const answer = result.structuredContent as { data: unknown[]; meta: Record<string, unknown> };
          const notice = String(answer.meta['notice']);
          assert.ok(
            notice.split(filterWord).length - 1 <= 1,
            `${dialect} ${name}: the filter is named at most once (none where the upstream filtered): ${notice}`,
          );
          // Fewer rows than asked and more left: the answer says why and how to read on.
          if (args['limit'] === 5 && answer.data.length < 5 && answer.meta['has_more'] === true && answer.meta['next_cursor'] === undefined)
            assert.match(String(answer.meta['more_rows']), /before the filter/, `${dialect} ${name}: ${String(answer.meta['more_rows'])}`);
        }
      } finally {
        await server.close();
      }
    });
  });
}
