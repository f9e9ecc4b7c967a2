/**
 * The dialects the suites run against: the four named ones, a fixed set of composed seeds
 * that together serve every value of every trait (test/simulator/dialect-forms.test.ts
 * holds them to it), and random seeds drawn anew each run, which print their traits when a
 * check fails so that the run can be replayed with MARKET_DATA_SIM_DIALECT=seed:<n>.
 */
import { DATASETS } from '../../src/catalog/index.js';
import { DIALECT_ENV, DIALECT_NAMES, dialectNamed, type Dialect } from '../../src/simulator/dialect.js';
import { listPaging } from '../../src/simulator/dialect-lists.js';

/**
 * Chosen (greedily, over seeds 0 to 2999) so that every trait value appears in at least one;
 * the last three (greedily, over 3000 to 5999) for the JSON:API and Stripe paging forms, which
 * only seeds from 3000 draw (dialect-compose.ts LATER_PAGING_FROM_SEED).
 */
export const FIXED_SEEDS: readonly number[] = [259, 933, 738, 1605, 841, 81, 19, 27, 382, 3836, 3093, 3135];

/** What each dataset needs to answer at all, in our names. */
export const SAMPLE_FILTERS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'options.chain_history': { expiration: '2026-12-18', right: 'C' },
  'stocks.sector_tickers': { sector: 'Energy' },
  'market.correlations': { tickers: 'SPY,QQQ' },
  'macro.forex_rate': { pair: 'EURUSD' },
};

/** Every (trait, value) a dialect serves, the paging of each list included. */
export function traitValues(dialect: Dialect): [string, string][] {
  const t = dialect.traits;
  const pagings = DATASETS.flatMap((d) => {
    const paging = listPaging(dialect, d);
    return paging ? [paging] : [];
  });
  return [
    ['ids', t.operationIds],
    ['params', t.declaration],
    ['openapi', t.version],
    ['nullable', t.nullable],
    ['enums', t.enums],
    ['const', String(t.constants)],
    ['names', t.naming],
    ['lists', t.lists],
    ['wrapper', t.wrapper],
    ['fields', String(t.fieldNames)],
    ['numbers', t.numbers],
    ['state', t.values.state.closed],
    ['node_type', t.values.nodeType.king],
    ['data_source', t.values.dataSource],
    ['servers', t.servers],
    ['responses', t.responses],
    ['dealer-cursor', t.dealerPaging.cursor],
    ['dealer-size', t.dealerPaging.size ?? 'fixed'],
    ['paging-plan', t.paging.kind],
    ...pagings.flatMap((p): [string, string][] => [
      ['paging', p.kind],
      ...(p.kind === 'cursor'
        ? ([
            ['cursor', p.cursor],
            ['token-at', p.tokenAt],
          ] as [string, string][])
        : []),
      ...(p.kind === 'json-api' ? ([['json-api', `${p.form},${p.position},${p.next}`]] as [string, string][]) : []),
      ...(p.kind === 'after-id' ? ([['after-id', p.cursor]] as [string, string][]) : []),
      ...(p.kind === 'none' ? ([['none', `${p.cut === null ? 'whole' : 'cut'}${p.flag ? '+flag' : ''}`]] as [string, string][]) : []),
    ]),
  ];
}

/** Random seeds for this run: RANDOM_DIALECT_SEEDS=<n,...> replays them. */
function randomSeeds(count: number): number[] {
  const given = process.env['RANDOM_DIALECT_SEEDS'];
  if (given) return given.split(',').map(Number);
  return Array.from({ length: count }, () => Math.floor(Math.random() * 10_000_000));
}

export interface DialectUnderTest {
  readonly name: string;
  /** Composed from a seed outside FIXED_SEEDS (drawn at random): its checks are reported, not held. */
  readonly random: boolean;
}

/** A seed the fixed set does not hold: CI's random one, or any other named on the command line. */
function isRandomSeed(name: string): boolean {
  const seed = /^seed:(\d+)$/.exec(name)?.[1];
  return seed !== undefined && !FIXED_SEEDS.includes(Number(seed));
}

/**
 * The dialect MARKET_DATA_SIM_DIALECT names when set (CI loops over the fixed seeds and a
 * random one so), else the named dialects and one random seed (ALL_DIALECT_SEEDS=1 adds the
 * fixed seeds, for a local run of everything).
 */
export function dialectsUnderTest(): DialectUnderTest[] {
  const chosen = process.env[DIALECT_ENV];
  if (chosen) {
    const name = dialectNamed(chosen).name;
    return [{ name, random: isRandomSeed(name) }];
  }
  return [
    ...DIALECT_NAMES.map((name) => ({ name, random: false })),
    ...(process.env['ALL_DIALECT_SEEDS'] === '1' ? FIXED_SEEDS.map((seed) => ({ name: `seed:${seed}`, random: false })) : []),
    ...randomSeeds(1).map((seed) => ({ name: `seed:${seed}`, random: true })),
  ];
}
