import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RETRY_POLICY } from '../../src/api/retry-policy.js';
import { API_ERROR_CODES, type ApiErrorCode, type NextAction } from '../../src/catalog/index.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';

const INVALID: [string, string, Record<string, unknown>, string, RegExp][] = [
  ['a lower-case ticker', 'stocks_dividends', { ticker: 'spy' }, 'TICKER_INVALID', /use "SPY"/],
  // A ticker the dealer history covers in no spelling (BRK.B) is told so, not to fix it: test/tools/texts.test.ts.
  [
    'a ticker with characters the pattern forbids',
    'derived_dealer_gex_history',
    { ticker: 'S&P' },
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
  [
    'fields that are not names',
    'shorts_short_screener',
    { fields: ['ticker;drop'] },
    'VALIDATION_ERROR',
    /field names as the rows name them/,
  ],
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
        // Hidden characters come back escaped (\u202e as six printable characters), never raw.
        assert.doesNotMatch(JSON.stringify(result), /\u202e|(?<!\\)\\u0000/, `${what}: nothing hostile echoed`);
      }
      assert.equal(sim.api.requests.filter((r) => !r.path.startsWith('/v1/openapi')).length, before, 'no request reached the simulator');
    } finally {
      await close();
    }
  });
});

test('a value refused for a hidden character is quoted as sent, escaped: never as the valid-looking text left once it is dropped', async () => {
  const { client, close } = await connectV2({ args: ['--demo'], env: { MARKET_DATA_LOG_LEVEL: 'warn' } });
  try {
    const cases: [string, Record<string, unknown>, string][] = [
      ['derived_dealer_gex_history', { ticker: 'S\u0007P\u202eY' }, '"S\\u0007P\\u202eY"'],
      ['stocks_sector_tickers', { sector: 'Technology\u200f' }, '"Technology\\u200f"'],
      ['shorts_short_screener', { tickers: 'GME,\u202eAMC' }, '"GME,\\u202eAMC"'],
    ];
    for (const [name, args, quoted] of cases) {
      const result = await client.callTool({ name, arguments: args });
      const error = errorOf(result);
      assert.ok(error.message.includes(quoted), `${name}: the agent sees what it sent: ${error.message}`);
      assert.match(textOf(result), /^[\x20-\x7e\n]+$/, `${name}: only printable text reaches the agent`);
    }
  } finally {
    await close();
  }
});

/**
 * What the agent is told to do for each upstream code, written out here rather than read
 * from the table, so that a row whose guidance changes fails this test.
 */
const EXPECTED_ACTION: Record<ApiErrorCode, NextAction> = {
  AUTH_MISSING: 'check_configuration',
  AUTH_INVALID: 'check_configuration',
  AUTH_PAUSED: 'check_configuration',
  SCOPE_INSUFFICIENT: 'check_configuration',
  KEY_LIMIT_REACHED: 'check_configuration',
  VALIDATION_ERROR: 'fix_input',
  TICKER_INVALID: 'fix_input',
  CONTRACT_SYMBOL_INVALID: 'fix_input',
  INDEX_UNSUPPORTED: 'fix_input',
  RANGE_TOO_DEEP: 'fix_input',
  RESPONSE_TOO_LARGE: 'fix_input',
  NOT_FOUND: 'do_not_retry',
  // Recoverable codes, injected with a 30 s Retry-After beyond the 1.5 s deadline: the
  // client answers at once with the wait rather than let the host time the call out.
  READ_MODEL_UNAVAILABLE: 'retry_after_wait',
  SERVICE_DISABLED: 'degrade',
  RATE_LIMITED: 'retry_after_wait',
  QUOTA_EXHAUSTED: 'wait_for_quota_reset',
  IN_FLIGHT_EXCEEDED: 'retry_after_wait',
  CIRCUIT_OPEN: 'retry_after_wait',
  UPSTREAM_ERROR: 'retry_after_wait',
  UPSTREAM_TIMEOUT: 'retry_after_wait',
  INTERNAL_ERROR: 'retry_after_wait',
};

/** The sentence of the guidance each action brings. */
const GUIDANCE: Record<NextAction, RegExp> = {
  check_configuration: /call api_status/,
  fix_input: /Fix the arguments/,
  do_not_retry: /Do not retry/,
  retry_after_wait: /Wait 30 s, then call again/,
  retry_later: /Call again later/,
  degrade: /Continue without this dataset/,
  wait_for_quota_reset: /Do not retry before the reset/,
};

test('the expected actions name every upstream code of the error table, and no other', () => {
  assert.deepEqual(Object.keys(EXPECTED_ACTION).sort(), Object.keys(API_ERROR_CODES).sort());
});

test('every upstream error code comes back structured with its guidance', async () => {
  // The quota latch stops every later call, so QUOTA_EXHAUSTED goes last.
  const codes = (Object.keys(API_ERROR_CODES) as ApiErrorCode[]).sort(
    (a, b) => Number(a === 'QUOTA_EXHAUSTED') - Number(b === 'QUOTA_EXHAUSTED'),
  );
  assert.equal(codes.length, Object.keys(EXPECTED_ACTION).length);
  await withSimulator({}, async (sim) => {
    const connect = () => connectV2({ baseUrl: sim.url, key: 'sim-admin-key', env: { MARKET_DATA_DEADLINE_MS: '1500' } });
    const { client, close } = await connect();
    try {
      const seen: ApiErrorCode[] = [];
      for (const [index, code] of codes.entries()) {
        const action = EXPECTED_ACTION[code];
        // Enough copies to outlast the client's own retries; distinct limits dodge the cache.
        sim.api.faults.clear();
        sim.api.faults.inject({ kind: 'error', code, retryAfterSeconds: 30, hint: 'a hint from upstream' }, 5);
        // SERVICE_DISABLED is remembered per dataset: it gets one of its own.
        const name = code === 'SERVICE_DISABLED' ? 'congress_recent_trades' : 'market_oi_change';
        // A code that pauses the whole account pauses it for the 30 s asked: a server of its own.
        const rule = RETRY_POLICY[code];
        const pauses = rule.kind === 'wait-server' && rule.pauseAccount;
        const own = pauses ? await connect() : undefined;
        try {
          const result = await (own?.client ?? client).callTool({ name, arguments: { limit: 10 + index } });
          const error = errorOf(result);
          assert.equal(error.code, code);
          assert.equal(error.action, action, code);
          assert.match(textOf(result), GUIDANCE[action], code);
          assert.equal(error.hint, 'a hint from upstream', code);
          assert.ok(error.docs_url?.endsWith(`#${code}`), code);
          assert.ok(error.request_id, code);
          if (own) {
            // The call queued behind it is not sent into the same refusal: the account waits as asked.
            sim.api.faults.clear();
            const sent = sim.api.requests.length;
            const behind = errorOf(await own.client.callTool({ name, arguments: { limit: 100 + index } }));
            assert.equal(behind.code, 'RATE_LIMITED', `${code}: the next call is told to wait`);
            assert.equal(sim.api.requests.length, sent, `${code}: the next call reached no upstream`);
          }
        } finally {
          await own?.close();
        }
        seen.push(code);
      }
      assert.deepEqual(seen.sort(), Object.keys(API_ERROR_CODES).sort(), 'every code was tried');
    } finally {
      await close();
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
