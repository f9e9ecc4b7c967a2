import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DATASETS,
  META_ENDPOINTS,
  osiContractSymbol,
  refusalCodeOf,
  scopeOf,
  toolsetOf,
  validateRequest,
  type DatasetDefinition,
} from '../../src/catalog/index.js';

function dataset(operationId: string): DatasetDefinition {
  const found = DATASETS.find((d) => d.operationId === operationId);
  assert.ok(found, operationId);
  return found;
}

test('the catalog holds the 22 dataset endpoints and 3 free meta endpoints of the spec, each once', () => {
  assert.equal(DATASETS.length, 22);
  assert.equal(META_ENDPOINTS.length, 3);
  const ids = [...DATASETS, ...META_ENDPOINTS].map((d) => d.operationId);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(new Set(DATASETS.map((d) => d.path)).size, DATASETS.length);
  assert.ok(ids.includes('flow.ticker_overview'));
  for (const d of DATASETS) {
    assert.equal(d.path.includes('{ticker}'), d.ticker !== undefined, `${d.operationId}: ticker parameter matches its path`);
    assert.equal(scopeOf(d), `read:${toolsetOf(d)}`);
  }
});

test('every ticker schema is refused as TICKER_INVALID, contract symbols as CONTRACT_SYMBOL_INVALID', () => {
  for (const d of DATASETS) if (d.ticker) assert.equal(refusalCodeOf(d.ticker), 'TICKER_INVALID', d.operationId);
  assert.equal(refusalCodeOf(osiContractSymbol.optional()), 'CONTRACT_SYMBOL_INVALID');
});

test('OSI contract symbols: underlying, real YYMMDD expiry, C or P, strike x 1000 in 8 digits', () => {
  assert.ok(osiContractSymbol.safeParse('SPY261218C00600000').success);
  assert.ok(osiContractSymbol.safeParse('AAPL270115P00227500').success);
  for (const bad of ['SPY261218C600000', 'SPY261318C00600000', 'SPY260230C00600000', 'spy261218C00600000', 'SPY261218X00600000']) {
    assert.ok(!osiContractSymbol.safeParse(bad).success, bad);
  }
});

test('a lower-case ticker is refused with a hint that spells the fix', () => {
  const result = validateRequest(dataset('stocks.dividends'), 'spy', {});
  assert.ok(!result.ok);
  assert.equal(result.refusal.code, 'TICKER_INVALID');
  assert.equal(result.refusal.hint, 'Tickers are upper case: use "SPY".');
});

test('dates must be real calendar dates, and from may not pass to', () => {
  const d = dataset('shorts.volume_and_ratio');
  assert.ok(validateRequest(d, 'GME', { from: '2024-02-29' }).ok, 'leap day');
  for (const from of ['2023-02-29', '2026-13-01', '26-01-01']) {
    const result = validateRequest(d, 'GME', { from });
    assert.ok(!result.ok && result.refusal.code === 'VALIDATION_ERROR' && /YYYY-MM-DD/.test(result.refusal.hint), from);
  }
  const reversed = validateRequest(d, 'GME', { from: '2026-03-01', to: '2026-02-01' });
  assert.ok(!reversed.ok && reversed.refusal.param === 'from');
});

test('a hostile string is quoted back short and without control or bidi characters', () => {
  const hostile = 'SPY\u202Egnp.exe\u0000\u001b[31m' + 'A'.repeat(500);
  const result = validateRequest(dataset('stocks.dividends'), hostile, {});
  assert.ok(!result.ok);
  assert.ok(result.refusal.message.length < 100, result.refusal.message);
  // eslint-disable-next-line no-control-regex
  assert.doesNotMatch(result.refusal.message, /[\u0000-\u001f\u202e]/);
});

test('enum refusals list the allowed values', () => {
  const result = validateRequest(dataset('stocks.sector_tickers'), undefined, { sector: 'Crypto' });
  assert.ok(!result.ok);
  assert.match(result.refusal.hint, /Basic Materials, Communication Services/);
});

test('numbers arrive as strings on the wire and as numbers from agents: both validate, with defaults filled', () => {
  const d = dataset('derived.dealer_gex_history');
  const wire = validateRequest(d, 'SPY', { limit: '12' });
  const agent = validateRequest(d, 'SPY', {});
  assert.ok(wire.ok && wire.query['limit'] === 12);
  assert.ok(agent.ok && agent.query['limit'] === 6);
});

test('guidance says each thing once: an API hint that already says "do not retry" is not told again', async () => {
  const { guidanceFor } = await import('../../src/mcp/answers/guidance.js');
  const base = {
    code: 'NOT_FOUND',
    message: 'ZZZZ is not covered by the service.',
    action: 'do not retry',
    retryAfterSeconds: undefined,
    status: 404,
    local: false,
  };
  const told = guidanceFor({ ...base, hint: 'Do not retry; check the symbol.' }, 'do_not_retry');
  assert.equal(told.match(/do not retry/gi)?.length, 1, told);
  assert.match(told, /check the symbol/);
  const bare = guidanceFor({ ...base, hint: undefined }, 'do_not_retry');
  assert.match(bare, /Do not retry this request as is\./, 'without such a hint the guidance still says it');
  // An upstream's words without a full stop (trial of issue 22: "…the bench upstream Do not retry…").
  const unpunctuated = guidanceFor(
    { ...base, message: 'not served by this upstream', hint: 'see the tool schema (1 to 500)' },
    'do_not_retry',
  );
  assert.equal(unpunctuated, 'NOT_FOUND: not served by this upstream. see the tool schema (1 to 500). Do not retry this request as is.');
});
