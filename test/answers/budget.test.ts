/** No result of any tool exceeds MARKET_DATA_RESULT_TOKENS, counted by an o200k tokenizer. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { ApiResult } from '../../src/api/client.js';
import { shapeResult, withinBudget } from '../../src/mcp/answers/results.js';
import { estimateTokens } from '../../src/mcp/answers/tokens.js';
import { dialectNamed } from '../../src/simulator/dialect.js';
import { FIXED_SEEDS } from '../helpers/dialect-seeds.js';
import { ETF_FLOWS } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';
import { tokens, withSession } from '../helpers/answers-harness.js';

const BUDGET = 500;

/** The largest answer each tool can give: every row the catalog allows. */
function largest(
  name: string,
  schema: { properties?: Record<string, { maximum?: number }>; required?: string[] },
): Record<string, unknown> {
  const props = schema.properties ?? {};
  const args: Record<string, unknown> = {};
  if (props['ticker']) args['ticker'] = 'SPY';
  if (props['limit']?.maximum !== undefined) args['limit'] = props['limit'].maximum;
  const required: Record<string, Record<string, unknown>> = {
    options_chain_history: { expiration: '2026-12-18', right: 'C', interval: '1m' },
    stocks_sector_tickers: { sector: 'Technology' },
    market_correlations: { tickers: 'SPY,QQQ,IWM,AAPL,MSFT,NVDA,AMD,TSLA,AMZN,META' },
    macro_forex_rate: { pair: 'EURUSD' },
    volatility_anomaly: { with_tickers: 'QQQ,IWM,AAPL,MSFT,NVDA,AMD,TSLA,AMZN,META' },
    derived_dealer_gex_history: { view: 'full', from: '2000-01-03' },
  };
  return { ...args, ...(required[name] ?? {}) };
}

test(`every tool's largest answer, api_status and an imported dataset included, fits a ${BUDGET}-token budget by the o200k tokenizer`, async () => {
  await withSession(
    { MARKET_DATA_RESULT_TOKENS: String(BUDGET) },
    async (session) => {
      // The upstream document is imported at start within a bounded wait, else behind it (with
      // tools/list_changed, as a client hears): on a busy machine the tool may come a moment later.
      let { tools } = await session.client.listTools();
      await eventually(async () => {
        ({ tools } = await session.client.listTools());
        return tools.some((t) => t.name === 'etf_flows_by_ticker');
      }, 'the dataset imported from the upstream document to be listed');
      assert.ok(
        tools.some((t) => t.name === 'etf_flows_by_ticker'),
        'the dataset imported from the upstream document is a tool',
      );
      for (const tool of tools) {
        const result = await session.call(tool.name, largest(tool.name, tool.inputSchema as never));
        // Errors count too (RESPONSE_TOO_LARGE at the largest limit, for one).
        const n = tokens(result.structuredContent);
        assert.ok(n <= BUDGET, `${tool.name}: ${n} tokens`);
        const text = (result.content as { text: string }[])[0]?.text ?? '';
        assert.ok(countTokens(text) <= BUDGET, `${tool.name}: text block ${countTokens(text)} tokens`);
      }
    },
    'sim-admin-key',
    { extraDatasets: [ETF_FLOWS] },
  );
});

test(`a dealer snapshot over a ${BUDGET}-token budget even without its strikes is answered within it, its advice short`, async () => {
  // A fixed seed that spells the states otherwise: each snapshot carries state_normalized beside its state.
  const seed = FIXED_SEEDS.map((n) => `seed:${n}`).find((name) => dialectNamed(name).traits.values.state.closed !== 'closed');
  assert.ok(seed, 'a fixed seed spells the states otherwise');
  await withSession(
    { MARKET_DATA_RESULT_TOKENS: String(BUDGET) },
    async (session) => {
      const answer = await session.answer('derived_dealer_gex_history', { ticker: 'SPY', view: 'full', from: '2000-01-03' });
      assert.ok(tokens(answer) <= BUDGET, `${tokens(answer)} tokens`);
      const data = answer.data as { strikes?: unknown[]; state_normalized?: string }[];
      assert.equal(data.length, 1, 'one snapshot, cut to fit');
      assert.ok(answer.meta.next_cursor, 'and the cursor to the rest');
    },
    'sim-live-key',
    { dialect: seed },
  );
});

test(`strikes cut inside a dealer snapshot at a ${BUDGET}-token budget are said out of the cursor's reach, which reads older snapshots`, async () => {
  await withSession({ MARKET_DATA_RESULT_TOKENS: String(BUDGET) }, async (session) => {
    const whole = await withSessionWhole();
    const answer = await session.answer('derived_dealer_gex_history', { ticker: 'SPY' });
    const [shown] = answer.data as { snapshot_at: string; strikes: unknown[] }[];
    assert.ok(shown, 'one snapshot');
    const trimmed = answer.meta['trimmed'] as { strikes_returned?: number; how_to_get_more: string } | undefined;
    assert.ok(trimmed?.strikes_returned !== undefined && trimmed.strikes_returned < whole, `strikes cut: ${JSON.stringify(trimmed)}`);
    assert.match(trimmed.how_to_get_more, /no cursor reaches/);
    assert.doesNotMatch(trimmed.how_to_get_more, /Follow meta\.next_cursor/, 'the cursor does not lead to the cut strikes');
    // What the cursor does read: an older snapshot, not the rest of this one.
    const cursor = answer.meta.next_cursor;
    assert.ok(typeof cursor === 'string');
    const next = await session.answer('derived_dealer_gex_history', { ticker: 'SPY', cursor });
    const [older] = next.data as { snapshot_at: string }[];
    assert.ok(older && older.snapshot_at < shown.snapshot_at, `${older?.snapshot_at} before ${shown.snapshot_at}`);
  });
});

/** How many strikes SPY's newest snapshot holds, read with a budget that keeps them all. */
async function withSessionWhole(): Promise<number> {
  return withSession({ MARKET_DATA_RESULT_TOKENS: '200000' }, async (session) => {
    const answer = await session.answer('derived_dealer_gex_history', { ticker: 'SPY' });
    const [snapshot] = answer.data as { strikes: unknown[] }[];
    assert.ok(snapshot && answer.meta['trimmed'] === undefined, 'the whole snapshot');
    return snapshot.strikes.length;
  });
}

function apiResult(data: unknown): ApiResult {
  return { data, meta: { operation_id: 'test.op', cache_hit: false, age_seconds: 0, truncated: false } };
}

const digits = (n: number): number[] => Array.from({ length: n }, (_, i) => (i * 7919.123) % 100_003);

test('payloads with no top-level array, one huge row, or deep nesting are cut to the budget, never past it', async () => {
  const cases: Record<string, unknown> = {
    'object with no array': Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`field_${i}`, i * 1.25])),
    'one huge row': [{ id: 1, values: digits(20_000), note: 'x'.repeat(40_000) }],
    'huge strings only': { a: 'lorem ipsum '.repeat(20_000), b: 'ÄÖÜ你好'.repeat(5000) },
    'deep arrays': { outer: [{ inner: [{ values: digits(30_000) }] }] },
    'one huge string': 'token '.repeat(50_000),
  };
  for (const [label, data] of Object.entries(cases)) {
    const shaped = await shapeResult(apiResult(data), { budgetTokens: BUDGET, simulated: false });
    const n = tokens(shaped);
    assert.ok(n <= BUDGET, `${label}: ${n} tokens`);
    assert.equal(shaped.meta.truncated, true, `${label}: says it was cut`);
  }
  const status = await withinBudget({ summary: 'ok', blob: digits(50_000) }, BUDGET);
  assert.ok(tokens(status) <= BUDGET);
});

/** mulberry32: a fixed sequence, so a failure repeats. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('the run-time estimate never counts fewer tokens than o200k', () => {
  const random = seeded(12);
  const alphabet = ['0123456789', 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', ' ', '{}[]":,.-_+/\\', 'éüß你好🚀\u200b\n\t'];
  const samples: string[] = [];
  for (let i = 0; i < 400; i += 1) {
    const length = 1 + Math.floor(random() * 400);
    let text = '';
    for (let j = 0; j < length; j += 1) {
      const set = alphabet[Math.floor(random() * alphabet.length)] ?? '';
      text += set[Math.floor(random() * set.length)] ?? '';
    }
    samples.push(text, JSON.stringify({ value: text, n: random() * 1e9 }));
  }
  samples.push(JSON.stringify(digits(5000)), JSON.stringify({ tickers: ['BRK.B', 'GOOGL', 'NVDA'], when: new Date(0).toISOString() }));
  for (const text of samples) {
    assert.ok(
      estimateTokens(text) >= countTokens(text),
      `estimate ${estimateTokens(text)} < ${countTokens(text)} for ${JSON.stringify(text).slice(0, 80)}`,
    );
  }
});
