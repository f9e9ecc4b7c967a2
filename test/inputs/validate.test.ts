/**
 * The one validation path, called as the simulator calls it (query strings) and as the
 * MCP layer calls it (an agent's JSON object).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod';
import { generalTicker, validateRequest, type DatasetDefinition } from '../../src/catalog/index.js';
import { validateToolArguments } from '../../src/mcp/arguments/screen.js';
import { dataset } from '../helpers/client.js';

const WITH_FLAGS: DatasetDefinition = {
  operationId: 'etf.holdings',
  path: '/v1/etf/holdings/{ticker}',
  title: 'ETF holdings',
  description: 'Holdings of one ETF.',
  ticker: generalTicker,
  query: {
    constructor: z.enum(['cap', 'equal']).optional(),
    include_cash: z.boolean().optional(),
  },
  onDemand: false,
  cacheClass: 'daily',
};

function refusal(result: ReturnType<typeof validateRequest>): { code: string; param: string; message: string; hint: string } {
  assert.ok(!result.ok, 'expected a refusal');
  return result.refusal;
}

test('on the wire a number must be plain decimal text: hex, exponents and blanks are refused', () => {
  const d = dataset('shorts.short_screener');
  assert.ok(validateRequest(d, undefined, { limit: '12' }).ok);
  for (const limit of ['0x10', '1e2', '', ' 5', 'Infinity'])
    assert.equal(refusal(validateRequest(d, undefined, { limit })).param, 'limit', limit);
});

test('from an agent a number is a JSON number or its exact text: true, "12.5", "0x10" and [5] are not limits', () => {
  const d = dataset('shorts.short_screener');
  const ok = validateToolArguments(d, { limit: 12 });
  assert.ok(ok.ok && ok.query['limit'] === 12);
  const text = validateToolArguments(d, { limit: '12' });
  assert.ok(text.ok && text.query['limit'] === 12, 'the text of an integer is the integer');
  for (const limit of [true, '12.5', '0x10', ' 12', [5], { n: 5 }]) {
    const r = refusal(validateToolArguments(d, { limit }));
    assert.equal(r.code, 'VALIDATION_ERROR');
    assert.match(r.message, /expected an integer/);
  }
});

test('null from an agent means omitted: defaults apply and a required one is reported missing by name', () => {
  const dealer = validateToolArguments(dataset('derived.dealer_gex_history'), { ticker: 'SPY', limit: null, cursor: null });
  assert.ok(dealer.ok && dealer.query['limit'] === 6 && !('cursor' in dealer.query));
  const missing = refusal(validateToolArguments(dataset('stocks.sector_tickers'), { sector: null }));
  assert.equal(missing.message, 'Missing required parameter "sector".');
  assert.match(refusal(validateToolArguments(dataset('stocks.dividends'), {})).message, /Missing required parameter "ticker"/);
});

test('prototype keys are refused by name, own or smuggled in as the prototype; a declared `constructor` works', () => {
  const d = dataset('stocks.dividends');
  const own = JSON.parse('{"ticker":"SPY","__proto__":{"limit":1}}') as Record<string, unknown>;
  assert.match(refusal(validateToolArguments(d, own)).message, /"__proto__" is not allowed/);
  const smuggled = Object.assign(Object.create({ limit: 1 }) as Record<string, unknown>, { ticker: 'SPY' });
  assert.match(refusal(validateToolArguments(d, smuggled)).message, /"__proto__" is not allowed/);
  for (const name of ['constructor', 'hasOwnProperty', 'prototype']) {
    assert.match(refusal(validateToolArguments(d, { ticker: 'SPY', [name]: 'x' })).message, new RegExp(`"${name}" is not allowed`));
  }
  const bare = validateToolArguments(WITH_FLAGS, { ticker: 'SPY' });
  assert.ok(bare.ok && Object.keys(bare.query).length === 0, 'nothing read off the prototype');
  const set = validateToolArguments(WITH_FLAGS, { ticker: 'SPY', constructor: 'equal' });
  assert.ok(set.ok && set.query['constructor'] === 'equal');
  assert.ok(validateRequest(WITH_FLAGS, 'SPY', {}).ok, 'the simulator side too');
});

test('booleans are checked by type and reach the request as the words true and false', () => {
  const agent = validateToolArguments(WITH_FLAGS, { ticker: 'SPY', include_cash: true });
  assert.ok(agent.ok && agent.query['include_cash'] === 'true');
  assert.equal(refusal(validateToolArguments(WITH_FLAGS, { ticker: 'SPY', include_cash: 'yes' })).param, 'include_cash');
  const text = validateToolArguments(WITH_FLAGS, { ticker: 'SPY', include_cash: 'false' });
  assert.ok(text.ok && text.query['include_cash'] === 'false', 'the words true and false from an agent too');
  const wire = validateRequest(WITH_FLAGS, 'SPY', { include_cash: 'false' });
  assert.ok(wire.ok && wire.query['include_cash'] === 'false');
  assert.equal(refusal(validateRequest(WITH_FLAGS, 'SPY', { include_cash: '1' })).param, 'include_cash');
});

test('strings are capped before any pattern runs, and lone surrogates are TICKER_INVALID', () => {
  const d = dataset('stocks.dividends');
  const huge = refusal(validateToolArguments(d, { ticker: 'A'.repeat(1 << 20) }));
  assert.equal(huge.code, 'TICKER_INVALID');
  assert.ok(huge.message.length < 100, huge.message);
  const broken = refusal(validateToolArguments(d, { ticker: 'SP\uDC00Y' }));
  assert.equal(broken.code, 'TICKER_INVALID');
  assert.equal(refusal(validateRequest(d, '\uD83D', {})).code, 'TICKER_INVALID');
  assert.equal(refusal(validateToolArguments(dataset('macro.forex_rate'), { pair: 'E'.repeat(300) })).code, 'VALIDATION_ERROR');
});

test('host control properties are dropped, every other unknown name is refused with the whole parameter list', () => {
  const d = dataset('stocks.dividends');
  const gemini = validateToolArguments(d, { ticker: 'SPY', wait_for_previous: true }, { extraParams: ['fields'] });
  assert.ok(gemini.ok && !('wait_for_previous' in gemini.query));
  const unknown = refusal(validateToolArguments(d, { ticker: 'SPY', colour: 'red' }, { extraParams: ['fields'] }));
  assert.equal(unknown.hint, 'Accepted parameters: ticker, limit, cursor, fields.');
  const marketWide = refusal(validateToolArguments(dataset('market.oi_change'), { ticker: 'SPY' }, { extraParams: ['fields'] }));
  assert.match(marketWide.message, /"ticker" does not apply/);
  assert.equal(marketWide.hint, 'Accepted parameters: session_date, tickers, limit, format, cursor, direction, fields.');
});

test('a ticker longer than any listed symbol is refused before any request', () => {
  const refused = refusal(validateToolArguments(dataset('stocks.dividends'), { ticker: 'A'.repeat(13) }));
  assert.equal(refused.code, 'TICKER_INVALID');
  assert.ok(validateToolArguments(dataset('stocks.dividends'), { ticker: 'BRK.B' }).ok);
});
