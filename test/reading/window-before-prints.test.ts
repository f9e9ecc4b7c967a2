/**
 * A dark-pool time window that lies before the oldest print the upstream returns is never
 * answered as an empty, complete list: many upstreams serve only their most recent prints and
 * end their list there, which says nothing of the session's earlier prints. The answer says
 * the window was not reached and that older prints cannot be read (more_rows), never
 * `has_more: false` over no rows. Held over dialects composed from seeds, drawn by fast-check,
 * and over page shapes made up here for the filter alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { previousTradingDay, toEt, tradingDayOnOrBefore } from '../../src/catalog/market-calendar.js';
import type { ApiResult } from '../../src/api/client.js';
import { DATASETS, type DatasetDefinition } from '../../src/catalog/index.js';
import { applyRowFilter, rowFilterOf } from '../../src/mcp/reading/row-filters.js';
import { clockOf, sessionPages, type Row } from '../helpers/darkpool-session.js';
import { FIXED_SEEDS } from '../helpers/dialect-seeds.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

const darkpool = ((): DatasetDefinition => {
  const found = DATASETS.find((d) => d.operationId === 'darkpool.by_ticker');
  assert.ok(found);
  return found;
})();

/** A session that has closed, whatever the time of day the test runs. */
const closedSession = (): string => previousTradingDay(tradingDayOnOrBefore(toEt(Date.now()).date));

/** HH:MM a minute before `clock`. */
const minuteBefore = (clock: string): string => {
  const [h = 0, m = 0] = clock.split(':').map(Number);
  const total = h * 60 + m - 1;
  return `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;
};

interface Answer {
  data: Row[];
  meta: { truncated: boolean; has_more?: boolean; next_cursor?: string; more_rows?: string; notice?: string };
}

test('a dark-pool window before the oldest print the upstream serves says it was not read, in every dialect drawn', async () => {
  const day = closedSession();
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.constantFrom(...FIXED_SEEDS), fc.integer({ min: 0, max: 9_999_999 })), async (seed) => {
      await withSimulator({ dialect: `seed:${seed}`, limits: { perWindow: 1000, perIpPerWindow: 1000 } }, async (sim) => {
        const session = (await sessionPages(sim, day)).flat();
        const reach = session.map(clockOf).reduce((a, b) => (b < a ? b : a));
        // This upstream serves the whole session: no window lies before its prints.
        if (reach <= '09:31') return;
        const window = { from_time: '09:30', to_time: minuteBefore(reach) };
        const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
        try {
          const result = await client.callTool({ name: 'darkpool_by_ticker', arguments: { ticker: 'AAPL', session_date: day, ...window } });
          assert.notEqual(result.isError, true, textOf(result).slice(0, 300));
          const answer = result.structuredContent as Answer;
          assert.deepEqual(answer.data, [], `seed:${seed}: no print of ${window.from_time}-${window.to_time} was served`);
          // Neither complete nor claimed to hold more: the upstream showed nothing of that part of the session.
          assert.equal(answer.meta.has_more, undefined, `seed:${seed}: has_more claims what was not shown: ${JSON.stringify(answer.meta)}`);
          assert.equal(answer.meta.truncated, true, `seed:${seed}`);
          assert.match(
            answer.meta.more_rows ?? '',
            new RegExp(
              `None of the window 09:30 to ${window.to_time} ET was read: the prints the API returned reach back only to ${reach} ET`,
            ),
            `seed:${seed}`,
          );
          checked += 1;
        } finally {
          await close();
        }
      });
    }),
    { numRuns: 6, examples: [[841], [3093]] },
  );
  assert.ok(checked >= 2, `${checked} dialects served only their newest prints`);
});

test('a window the rows read do not reach back to is never complete unless the upstream still has a page to read', () => {
  const clock = fc
    .integer({ min: 9 * 60 + 30, max: 16 * 60 })
    .map((m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);
  fc.assert(
    fc.property(fc.uniqueArray(clock, { minLength: 1, maxLength: 20 }), clock, fc.option(clock, { nil: undefined }), (clocks, from, to) => {
      fc.pre(to === undefined || from <= to);
      const newestFirst = [...clocks].sort().reverse();
      const page: ApiResult = {
        data: newestFirst.map((c) => ({ executed_at: `2026-11-20T${c}:00-05:00`, size: 100 })),
        meta: { operation_id: 'darkpool.by_ticker', cache_hit: false, age_seconds: 0, truncated: false },
      };
      const filter = rowFilterOf(darkpool, { from_time: from, ...(to ? { to_time: to } : {}) });
      assert.ok(filter);
      const { result, moreRows } = applyRowFilter(page, filter, { limit: 500, limitMax: 500 });
      const oldest = newestFirst.at(-1) ?? '';
      const claimedWhole = !result.meta.truncated && moreRows === undefined;
      assert.equal(claimedWhole, oldest <= from, `prints back to ${oldest}, window from ${from}: ${moreRows ?? 'claimed whole'}`);
    }),
  );
});
