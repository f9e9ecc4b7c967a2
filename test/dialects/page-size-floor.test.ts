/**
 * A page size of 0 or less reaches no upstream. Every dialect under test serves a document
 * whose page sizes state no minimum (the upstream itself would take `per_page=0`): each
 * curated tool with a page size refuses `limit: 0` and a negative one with VALIDATION_ERROR
 * naming the floor, and the simulator sees no data request; `limit: 1` is sent.
 * (test/catalog/page-size-floor.test.ts holds every generated form of the bound.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { DATASETS, type DatasetDefinition } from '../../src/catalog/index.js';
import { describeDialect, dialectNamed } from '../../src/simulator/dialect.js';
import { withSession } from '../helpers/answers-harness.js';
import { dialectsUnderTest, SAMPLE_FILTERS } from '../helpers/dialect-seeds.js';
import { errorOf, textOf } from '../helpers/mcp.js';

/** The catalog's lists with their page size's minimum left out, as an upstream's document may leave it. */
const UNBOUNDED_BELOW: DatasetDefinition[] = DATASETS.flatMap((dataset) => {
  const limit = dataset.query['limit'];
  if (!limit) return [];
  const json = z.toJSONSchema(limit, { io: 'input' }) as { maximum?: number; default?: number };
  const loose = z.coerce
    .number()
    .int()
    .max(json.maximum ?? 1000)
    .default(json.default ?? 10);
  return [{ ...dataset, query: { ...dataset.query, limit: loose } }];
});

const toolName = (dataset: DatasetDefinition): string => dataset.operationId.replace(/\./g, '_');

/** What a call needs besides the page size. */
function required(dataset: DatasetDefinition): Record<string, unknown> {
  return { ...(dataset.ticker ? { ticker: 'SPY' } : {}), ...SAMPLE_FILTERS[dataset.operationId] };
}

for (const { name: dialect, random } of dialectsUnderTest()) {
  test(
    `${dialect}: a page size of 0 or below is refused and sends nothing; 1 is sent`,
    { todo: random ? 'random seed' : false },
    async () => {
      const traits = describeDialect(dialectNamed(dialect));
      await withSession(
        {},
        async ({ sim, call }) => {
          const dataRequests = (): number => sim.api.requests.filter((r) => !r.operationId?.startsWith('meta.')).length;
          let checked = 0;
          for (const dataset of UNBOUNDED_BELOW) {
            if (dataset.toolOutput) continue;
            for (const limit of [0, -5]) {
              const before = dataRequests();
              const result = await call(toolName(dataset), { ...required(dataset), limit });
              const error = errorOf(result);
              assert.equal(error.code, 'VALIDATION_ERROR', `${dataset.operationId} limit=${limit}: ${traits}`);
              assert.match(`${error.message} ${error.hint ?? ''}`, /\b1\b/, `the floor is named: ${traits}`);
              assert.equal(dataRequests(), before, `${dataset.operationId} limit=${limit} reached the upstream: ${traits}`);
              checked += 1;
            }
          }
          assert.ok(checked >= 10, 'the lists with a page size were called');
          for (const name of ['stocks_ticker_exchanges', 'market_oi_change']) {
            const before = dataRequests();
            const result = await call(name, { limit: 1 });
            assert.notEqual(result.isError, true, `${name} limit=1: ${textOf(result).slice(0, 300)} ${traits}`);
            assert.ok(dataRequests() > before, `${name} limit=1 is sent: ${traits}`);
          }
        },
        'sim-live-key',
        { dialect, extraDatasets: UNBOUNDED_BELOW },
      );
    },
  );
}
