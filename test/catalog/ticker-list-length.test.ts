/**
 * A ticker list of well-formed names that is only too long is refused as too long
 * (VALIDATION_ERROR, "11 tickers: at most 10"), never as a misspelt ticker, whatever form
 * the upstream gives the list: the catalog's comma-separated text, or a document's array
 * with a `maxItems` of its own, which the spec leaves open. The upstream here is a dialect
 * the simulator composes from a seed, its list's `maxItems` drawn too, and the agent's
 * list sent as text or as a JSON list; the count said is the one that upstream takes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { DATASETS, refusalCodeOf, TICKER_LIST, type DatasetDefinition } from '../../src/catalog/index.js';
import { checkAgentArguments } from '../../src/catalog/validate.js';
import { openDocument } from '../../src/registry/openapi/document-source.js';
import { importOperations } from '../../src/registry/openapi/import.js';
import { dialectNamed } from '../../src/simulator/dialect.js';
import { dialectDocument } from '../../src/simulator/dialect-document.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

const BASE_URL = 'https://api.example.test';
const NAMES = Array.from({ length: 60 }, (_, i) => `T${i}`);

/** The most the catalog's own text list takes (where a document states no count): read off its pattern. */
const CATALOG_MOST = NAMES.findIndex((_, i) => !TICKER_LIST.test(NAMES.slice(0, i + 1).join(',')));

/** The document with every ticker list's `maxItems` set to `most` (a copy: the simulator's is memoised). */
function withListMost(document: unknown, most: number): unknown {
  return JSON.parse(JSON.stringify(document), (key: string, value: unknown) => (key === 'maxItems' ? most : value)) as unknown;
}

/** The short screener as the import reads it, and the name of its ticker-list filter there. */
function screenerList(datasets: readonly DatasetDefinition[]): { dataset: DatasetDefinition; param: string } {
  const dataset = datasets.find((d) => d.path.endsWith('/shorts/short-screener'));
  assert.ok(dataset, 'the short screener is imported');
  const param = Object.entries(dataset.query).find(([, schema]) => refusalCodeOf(schema) === 'TICKER_INVALID')?.[0];
  assert.ok(param, `a ticker list among ${Object.keys(dataset.query).join(', ')}`);
  return { dataset, param };
}

test('a list of well-formed tickers over the count the upstream takes is refused as too many, in any list form', async () => {
  assert.equal(CATALOG_MOST, 10);
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 5999 }),
      fc.integer({ min: 2, max: 30 }),
      fc.integer({ min: 1, max: 5 }),
      fc.constantFrom('text', 'array'),
      fc.nat(),
      async (seed, stated, over, form, at) => {
        const dialect = dialectNamed(`seed:${seed}`);
        const raw = withListMost(dialectDocument(DATASETS, dialect, BASE_URL), stated);
        const report = importOperations(await openDocument(raw), { baseUrl: BASE_URL, fresh: true });
        const { dataset, param } = screenerList(report.datasets);
        // What this upstream takes: its array's count, or (a comma-separated text, no count stated) the catalog's.
        const most = dialect.traits.lists === 'comma-string' ? CATALOG_MOST : stated;
        const where = `seed:${seed} lists=${dialect.traits.lists} most=${most} as ${form}`;
        const send = (names: string[]): ReturnType<typeof checkAgentArguments> =>
          checkAgentArguments(dataset, { [param]: form === 'text' ? names.join(',') : names }, new Set());

        // As many as it takes are taken (as text, which every list form reads).
        const taken = checkAgentArguments(dataset, { [param]: NAMES.slice(0, most).join(',') }, new Set());
        assert.ok(taken.ok, `${most} names are taken: ${where}`);

        const names = NAMES.slice(0, most + over);
        const refused = send(names);
        assert.equal(refused.ok, false, where);
        if (refused.ok) return;
        assert.equal(refused.refusal.code, 'VALIDATION_ERROR', `${where}: ${refused.refusal.message}`);
        assert.match(refused.refusal.message, new RegExp(`^${names.length} tickers: at most ${most} in one call`), where);

        // One misspelt name anywhere in the long list is still a ticker to fix.
        const misspelt = names.map((name, i) => (i === at % names.length ? name.toLowerCase() : name));
        const bad = send(misspelt);
        assert.equal(bad.ok ? 'ok' : bad.refusal.code, 'TICKER_INVALID', where);
      },
    ),
    { numRuns: 25 },
  );
});

test('two names sent to a parameter that takes one ticker are a ticker to fix, in every dataset with one', () => {
  const single = DATASETS.filter((dataset) => dataset.path.includes('{ticker}'));
  assert.ok(
    single.some((dataset) => dataset.operationId === 'derived.dealer_gex_history'),
    'the dealer tool takes one ticker',
  );
  for (const dataset of single) {
    const refused = checkAgentArguments(dataset, { ticker: 'SPY,QQQ' }, new Set());
    assert.equal(refused.ok ? 'ok' : refused.refusal.code, 'TICKER_INVALID', `${dataset.operationId}: ${JSON.stringify(refused)}`);
  }
});
