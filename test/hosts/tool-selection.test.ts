/**
 * The conventions users bring from other servers (issue 33): `--toolsets all` and `default`
 * (GitHub's server takes them), single tools with `--tools` and tools left out with
 * `--exclude-tools` (GitHub, Stripe), by flag or variable, each name checked with the
 * nearest valid one suggested. Through the built binary over stdio, as a host starts it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2 } from '../helpers/mcp.js';

interface Status {
  summary: string;
  server: { config_warnings: string[] };
}

async function listed(options: { args?: string[]; env?: Record<string, string> }): Promise<{ names: string[]; warnings: string[] }> {
  const { client, close } = await connectV2({
    args: ['--demo', ...(options.args ?? [])],
    env: { MARKET_DATA_LOG_LEVEL: 'warn', ...options.env },
  });
  try {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    const status = (await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as Status;
    return { names, warnings: status.server.config_warnings };
  } finally {
    await close();
  }
}

test('--toolsets all and default offer every tool, as no --toolsets does (all used to leave only api_status)', async () => {
  const every = await listed({});
  assert.ok(every.names.length >= 24, `${every.names.length} tools`);
  for (const word of ['all', 'default', 'default,shorts']) {
    const chosen = await listed({ args: ['--toolsets', word] });
    assert.deepEqual(chosen.names, every.names, `--toolsets ${word}`);
    assert.deepEqual(chosen.warnings, [], `--toolsets ${word} is not a typo`);
  }
  const byVariable = await listed({ env: { MARKET_DATA_TOOLSETS: 'all' } });
  assert.deepEqual(byVariable.names, every.names, 'MARKET_DATA_TOOLSETS=all');
});

test('--tools offers only the tools named (and api_status); volatility_compare answers though its datasets are not listed', async () => {
  const { client, close } = await connectV2({ args: ['--demo', '--tools', 'derived_dealer_gex_history,volatility_compare'] });
  try {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['api_status', 'derived_dealer_gex_history', 'volatility_compare']);
    const compare = await client.callTool({ name: 'volatility_compare', arguments: { tickers: 'AAPL,MSFT' } });
    assert.notEqual(compare.isError, true, JSON.stringify(compare).slice(0, 400));
    // A tool not offered is not callable, whatever volatility_compare reads for itself.
    await assert.rejects(
      client.callTool({ name: 'volatility_anomaly', arguments: { ticker: 'AAPL' } }),
      /Tool volatility_anomaly not found/,
    );
  } finally {
    await close();
  }
  const byVariable = await listed({ env: { MARKET_DATA_TOOLS: 'macro_forex_rate' } });
  assert.deepEqual(byVariable.names, ['api_status', 'macro_forex_rate']);
});

test('the tools over several names are chosen as volatility_compare is: by name alone, or with their toolset', async () => {
  const { client, close } = await connectV2({ args: ['--demo', '--tools', 'ticker_briefing,derived_dealer_gex_compare'] });
  try {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['api_status', 'derived_dealer_gex_compare', 'ticker_briefing']);
    const status = (await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as Status;
    assert.deepEqual(status.server.config_warnings, [], 'their names are valid --tools names');
    // They read their datasets themselves, though none of those datasets' tools is offered.
    const briefing = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'GME' } });
    assert.notEqual(briefing.isError, true, JSON.stringify(briefing).slice(0, 400));
    assert.equal((briefing.structuredContent as { failed?: unknown }).failed, undefined, JSON.stringify(briefing).slice(0, 400));
  } finally {
    await close();
  }
  const derived = await listed({ args: ['--toolsets', 'derived'] });
  assert.deepEqual(derived.names, ['api_status', 'derived_dealer_gex_compare', 'derived_dealer_gex_history']);
});

test('--toolsets and --tools add up; --exclude-tools (or MARKET_DATA_EXCLUDE_TOOLS) takes tools away, never api_status', async () => {
  const both = await listed({ args: ['--toolsets', 'shorts', '--tools', 'macro_forex_rate'] });
  assert.deepEqual(both.names, [
    'api_status',
    'macro_forex_rate',
    'shorts_sector_screener',
    'shorts_short_screener',
    'shorts_volume_and_ratio',
    'shorts_volumes_by_exchange',
    'ticker_briefing',
  ]);

  const every = await listed({});
  const without = await listed({ args: ['--exclude-tools', 'stocks_ticker_exchanges,shorts_short_screener'] });
  assert.deepEqual(
    without.names,
    every.names.filter((n) => n !== 'stocks_ticker_exchanges' && n !== 'shorts_short_screener'),
  );
  const byVariable = await listed({ env: { MARKET_DATA_EXCLUDE_TOOLS: 'api_status,volatility_compare' } });
  assert.deepEqual(
    byVariable.names,
    every.names.filter((n) => n !== 'volatility_compare'),
  );
  assert.match(byVariable.warnings.join(' '), /api_status is always offered/);
});

test('a mistyped tool or toolset is named with the nearest valid one, in api_status and in the tool list when nothing else is left', async () => {
  const { client, close, stderr } = await connectV2({
    args: ['--demo', '--tools', 'derived_dealer_gex,shorts', '--toolsets', 'volatilty'],
  });
  try {
    const tools = (await client.listTools()).tools;
    assert.deepEqual(
      tools.map((t) => t.name),
      ['api_status'],
    );
    const description = tools[0]?.description ?? '';
    assert.match(description, /NO DATA TOOLS/);
    // Both tools its name begins: the dealer history and the dealer compare over several names.
    assert.match(description, /"derived_dealer_gex" \(did you mean "derived_dealer_gex_history" or "derived_dealer_gex_compare"\?\)/);
    assert.match(description, /"shorts" \(a toolset: use --toolsets shorts\)/);
    assert.match(description, /"volatilty" \(did you mean "volatility"\?\)/);
    const status = (await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as Status;
    assert.match(status.summary, /No data tools/);
    assert.equal(status.server.config_warnings.length, 2, status.server.config_warnings.join('\n'));
    assert.match(stderr(), /did you mean \\?"derived_dealer_gex_history\\?"/, 'the start log says it too');
  } finally {
    await close();
  }
  // A name far from any: the valid ones are listed instead of a guess; a pasted secret is never echoed.
  const far = await listed({ args: ['--exclude-tools', 'weather,sk-live-0123456789abcdef!'] });
  const warning = far.warnings.join(' ');
  assert.match(warning, /Unknown tools "weather", \[not shown: not a tool or toolset name\]/);
  assert.match(warning, /Tools: .*derived_dealer_gex_history/);
  assert.doesNotMatch(warning, /sk-live/);
});
