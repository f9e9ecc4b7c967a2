import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApiErrorCode } from '../../src/catalog/index.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';

const INVALID: [string, string, Record<string, unknown>, string, RegExp][] = [
  ['a lower-case ticker', 'stocks_dividends', { ticker: 'spy' }, 'TICKER_INVALID', /use "SPY"/],
  [
    'a dotted ticker where the pattern forbids it',
    'derived_dealer_gex_history',
    { ticker: 'BRK.B' },
    'TICKER_INVALID',
    /1 to 5 upper-case letters/,
  ],
  ['an unknown enum value', 'flow_ticker_overview', { ticker: 'SPY', window: '30d' }, 'VALIDATION_ERROR', /1d, 7d/],
  ['a broken cursor', 'derived_dealer_gex_history', { ticker: 'SPY', cursor: '../../etc/passwd' }, 'VALIDATION_ERROR', /cursor/],
  ['a date that does not exist', 'shorts_volume_and_ratio', { ticker: 'GME', from: '2026-02-30' }, 'VALIDATION_ERROR', /YYYY-MM-DD/],
  [
    'an OSI symbol in the wrong format',
    'options_chain_history',
    { ticker: 'SPY', expiration: '2026-12-18', right: 'C', contract: 'SPY 600C' },
    'CONTRACT_SYMBOL_INVALID',
    /OSI/,
  ],
  ['an unknown parameter', 'market_oi_change', { colour: 'red' }, 'VALIDATION_ERROR', /Accepted parameters/],
  ['a missing required parameter', 'stocks_sector_tickers', {}, 'VALIDATION_ERROR', /sector/],
  ['a hostile string', 'stocks_dividends', { ticker: 'SPY\u202e\u0000/../../v1/discover' }, 'TICKER_INVALID', /upper-case/],
  ['a path traversal as ticker', 'stocks_dividends', { ticker: '..' }, 'TICKER_INVALID', /upper-case/],
  ['fields that are not names', 'shorts_short_screener', { fields: ['ticker;drop'] }, 'VALIDATION_ERROR', /snake_case/],
];

test('invalid input of each kind is refused with the API code and a fix, and reaches no upstream', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-admin-key' });
    try {
      const before = sim.api.requests.filter((r) => !r.path.startsWith('/v1/openapi')).length;
      for (const [what, name, args, code, hint] of INVALID) {
        const result = await client.callTool({ name, arguments: args });
        const error = errorOf(result);
        assert.equal(error.code, code, what);
        assert.equal(error.action, 'fix_input', what);
        assert.match(`${error.hint ?? ''} ${error.message}`, hint, what);
        assert.match(textOf(result), /Fix the arguments/, what);
        assert.doesNotMatch(JSON.stringify(result), /\u202e|\\u0000/, `${what}: nothing hostile echoed`);
      }
      assert.equal(sim.api.requests.filter((r) => !r.path.startsWith('/v1/openapi')).length, before, 'no request reached the simulator');
    } finally {
      await close();
    }
  });
});

/** Each upstream code, injected, comes back structured with the guidance the agent needs. */
const UPSTREAM: [ApiErrorCode, string, RegExp][] = [
  ['NOT_FOUND', 'do_not_retry', /Do not retry/],
  ['INDEX_UNSUPPORTED', 'fix_input', /Fix the arguments/],
  ['RANGE_TOO_DEEP', 'fix_input', /Fix the arguments/],
  ['RESPONSE_TOO_LARGE', 'fix_input', /format=summary/],
  ['AUTH_INVALID', 'check_configuration', /api_status/],
  ['AUTH_PAUSED', 'check_configuration', /api_status/],
  ['SCOPE_INSUFFICIENT', 'check_configuration', /api_status/],
  ['QUOTA_EXHAUSTED', 'wait_for_quota_reset', /Do not retry before the reset/],
  ['SERVICE_DISABLED', 'degrade', /Continue without this dataset/],
  ['UPSTREAM_ERROR', 'retry_after_wait', /Wait \d+ s/],
];

test('every upstream error code comes back structured with its guidance', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-admin-key', env: { MARKET_DATA_DEADLINE_MS: '1500' } });
    try {
      for (const [index, [code, action, guidance]] of UPSTREAM.entries()) {
        // Enough copies to outlast the client's own retries; distinct limits dodge the cache.
        sim.api.faults.clear();
        sim.api.faults.inject({ kind: 'error', code, retryAfterSeconds: 30, hint: 'a hint from upstream' }, 3);
        const result = await client.callTool({ name: 'market_oi_change', arguments: { limit: 10 + index } });
        const error = errorOf(result);
        assert.equal(error.code, code);
        assert.equal(error.action, action, code);
        assert.match(textOf(result), guidance, code);
        assert.equal(error.hint, 'a hint from upstream');
        assert.ok(error.docs_url?.endsWith(`#${code}`), code);
        assert.ok(error.request_id, code);
        if (code === 'QUOTA_EXHAUSTED') sim.api.setQuotaUsed('acct_admin', 0);
        if (code === 'QUOTA_EXHAUSTED') break; // the client latches the quota: the rest follow in a new server
      }
    } finally {
      await close();
    }
    const second = await connectV2({ baseUrl: sim.url, key: 'sim-admin-key', env: { MARKET_DATA_DEADLINE_MS: '1500' } });
    try {
      for (const [index, [code, action, guidance]] of UPSTREAM.slice(8).entries()) {
        sim.api.faults.clear();
        sim.api.faults.inject({ kind: 'error', code, retryAfterSeconds: 30 }, 3);
        // SERVICE_DISABLED is remembered per dataset: the next code needs another one.
        const result = await second.client.callTool({
          name: index === 0 ? 'shorts_short_screener' : 'congress_recent_trades',
          arguments: { limit: 10 + index },
        });
        assert.equal(errorOf(result).code, code);
        assert.equal(errorOf(result).action, action);
        assert.match(textOf(result), guidance);
      }
    } finally {
      await second.close();
    }
  });
});

test('without a key or --demo the server still starts and data tools answer CONFIG_INVALID with the fix', async () => {
  const { client, close } = await connectV2({});
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.length > 20, 'tools are listed');
    const error = errorOf(await client.callTool({ name: 'shorts_short_screener', arguments: {} }));
    assert.equal(error.code, 'CONFIG_INVALID');
    assert.equal(error.action, 'check_configuration');
    assert.match(error.hint ?? '', /MARKET_DATA_API_KEY/);
    assert.match(error.hint ?? '', /--demo/);
  } finally {
    await close();
  }
});
