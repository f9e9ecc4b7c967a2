/**
 * A row filter and a `limit`, through the built binary: in every dialect the limit counts
 * the rows that match (the same call means the same thing whoever filters: the upstream or
 * this server over the upstream's pages), so fewer rows than the limit come back only when
 * no more match; the notice names each filter once, whatever does the filtering.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DIALECT_NAMES } from '../../src/simulator/dialect.js';
import { withSimulator } from '../helpers/http.js';
import { connectV1, textOf } from '../helpers/mcp.js';

const KEY = 'sim-admin-key';
const ROOMY = { limits: { perWindow: 100_000, perIpPerWindow: 100_000 } };

for (const dialect of DIALECT_NAMES) {
  test(`${dialect}: with a row filter, limit counts the rows that match, and each filter is named once`, async () => {
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
          // The limit counts matching rows: fewer than asked only when none is left to read.
          if (args['limit'] === 5 && answer.data.length < 5)
            assert.notEqual(answer.meta['has_more'], true, `${dialect} ${name}: ${answer.data.length} rows of limit=5 while more remain`);
          if (args['limit'] === 5) assert.ok(answer.data.length <= 5, `${dialect} ${name}: at most the limit`);
        }
      } finally {
        await server.close();
      }
    });
  });
}
