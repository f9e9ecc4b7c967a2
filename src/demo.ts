/**
 * `market-data-mcp demo`: a short scripted MCP session a person can read in a terminal.
 * It starts this server in demo mode over stdio, exactly as a host would, and drives it
 * with the official client: tools by toolset, SPY dealer gamma levels, the short
 * screener, correlations and EUR/USD, one structured error, and the budget from api_status.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { NOT_FOR_THIS_KEY } from './mcp/key-reach.js';
import { NAME_TOOL_SETS } from './mcp/tools/name-tools.js';

interface Snapshot {
  snapshot_at: string;
  session_date_et: string;
  state: string;
  spot_usd: number;
  summary: Record<string, number>;
}

interface Pair {
  a: string;
  b: string;
  correlation: number;
}

// The demo is not the stdio server: its stdout is the terminal, for a person to read.
// eslint-disable-next-line no-restricted-properties
const print = (line = ''): boolean => process.stdout.write(`${line}\n`);
const usd = (n: number): string => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
const billions = (n: number): string => `${n < 0 ? '-' : ''}$${(Math.abs(n) / 1e9).toFixed(2)}B`;

export async function runDemo(): Promise<void> {
  const cli = fileURLToPath(new URL('./cli.js', import.meta.url));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, '--demo'],
    env: { ...process.env, MARKET_DATA_LOG_LEVEL: 'warn' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'market-data-mcp-demo', version: '1.0.0' });
  await client.connect(transport);
  // A reader that stops early (`market-data-mcp demo | head`) closes the pipe: the demo ends
  // there, quietly and with its server, rather than with a stack trace.
  // eslint-disable-next-line no-restricted-properties -- the demo's stdout is the terminal (see print)
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    void client.close().finally(() => process.exit(0));
  });
  try {
    print('market-data-mcp demo: an MCP session against the built-in simulator (synthetic data, no API key)');
    print();
    await showToolsets(client);
    await showDealerGamma(client);
    await showMostShorted(client);
    await showCorrelationsAndFx(client);
    await showStructuredError(client);
    await showBudget(client);
    print();
    print('Add it to your MCP host with MARKET_DATA_API_KEY and MARKET_DATA_BASE_URL set, or with --demo to keep exploring.');
  } finally {
    await client.close();
  }
}

async function showToolsets(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const byToolset = new Map<string, string[]>();
  // A tool the demo key cannot call says so in its description (mcp/key-reach.ts): starred here.
  const closed = tools.filter((tool) => tool.description?.startsWith(NOT_FOR_THIS_KEY));
  // The toolset --toolsets offers a tool with: a dataset's is its name's first word; a tool over
  // several names has its own (ticker_briefing comes with shorts); api_status comes with any.
  const nameToolset = new Map(NAME_TOOL_SETS.map((t) => [t.name, t.toolset]));
  for (const tool of tools) {
    if (tool.name === 'api_status') continue;
    const toolset = nameToolset.get(tool.name) ?? tool.name.split('_')[0] ?? 'other';
    const name = closed.includes(tool) ? `${tool.name}*` : tool.name;
    byToolset.set(toolset, [...(byToolset.get(toolset) ?? []), name]);
  }
  print(`${tools.length} tools, by toolset (--toolsets):`);
  for (const [toolset, names] of [...byToolset].sort()) print(`  ${toolset.padEnd(14)}${names.join(', ')}`);
  print(`  ${'(always)'.padEnd(14)}api_status`);
  if (closed.length > 0)
    print('  * not for the demo key (a standard account): its description says so, and a call answers SCOPE_INSUFFICIENT');
  print();
}

async function showDealerGamma(client: Client): Promise<void> {
  const gex = await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', limit: 1 } });
  const snapshot = (gex.structuredContent as { data: Snapshot[] } | undefined)?.data[0];
  if (!snapshot) return;
  const s = snapshot.summary;
  const spot = snapshot.spot_usd;
  const flip = s['gamma_flip_usd'] ?? spot;
  const session = snapshot.state === 'live' ? 'live, session in progress' : 'session closed';
  print(`SPY dealer gamma exposure, ${snapshot.session_date_et} session (${session}), snapshot ${snapshot.snapshot_at}:`);
  print(`  spot            ${usd(spot)}`);
  print(`  king strike     ${usd(s['king_strike_usd'] ?? 0)}   (largest absolute net GEX: price tends to pin here)`);
  print(
    `  gamma flip      ${usd(flip)}   (spot ${spot >= flip ? 'above: dealers long gamma, moves dampened' : 'below: dealers short gamma, moves amplified'})`,
  );
  print(`  call wall       ${usd(s['call_wall_strike_usd'] ?? 0)}`);
  print(`  put wall        ${usd(s['put_wall_strike_usd'] ?? 0)}`);
  print(`  total net GEX   ${billions(s['total_gex_usd'] ?? 0)} per 1% move   (dealers' hedge flow if SPY moves 1%)`);
  print();
}

async function showMostShorted(client: Client): Promise<void> {
  const screener = await client.callTool({
    name: 'shorts_short_screener',
    arguments: { limit: 5, fields: ['ticker', 'short_float_pct', 'days_to_cover'] },
  });
  const rows =
    (screener.structuredContent as { data: { ticker: string; short_float_pct: number; days_to_cover: number }[] } | undefined)?.data ?? [];
  print('Most shorted names (short interest as % of float):');
  for (const row of rows)
    print(`  ${row.ticker.padEnd(8)}${row.short_float_pct.toFixed(1).padStart(6)}%   ${row.days_to_cover.toFixed(1)} days to cover`);
  print();
}

async function showCorrelationsAndFx(client: Client): Promise<void> {
  const correlations = await client.callTool({
    name: 'market_correlations',
    arguments: { tickers: 'SPY,QQQ,IWM,TLT,GLD', lookback_days: 60 },
  });
  const pairs = (correlations.structuredContent as { data: Pair[] } | undefined)?.data ?? [];
  print('60-day return correlations with SPY:');
  print(
    `  ${pairs
      .filter((p) => p.a === 'SPY')
      .map((p) => `${p.b} ${p.correlation.toFixed(2)}`)
      .join('   ')}`,
  );
  const fx = await client.callTool({ name: 'macro_forex_rate', arguments: { pair: 'EURUSD' } });
  const quote = (fx.structuredContent as { data: { rate: number; as_of: string } } | undefined)?.data;
  if (quote) print(`EUR/USD ${quote.rate.toFixed(4)} as of ${quote.as_of}`);
  print();
}

/** A lower-case ticker, refused before any request: what an agent is told when it gets an argument wrong. */
async function showStructuredError(client: Client): Promise<void> {
  const bad = await client.callTool({ name: 'stocks_dividends', arguments: { ticker: 'spy' } });
  const error = (bad.structuredContent as { error: { code: string; action: string; hint: string } } | undefined)?.error;
  print('A structured error: stocks_dividends with ticker "spy"');
  print(`  code ${error?.code}, action ${error?.action}`);
  print(`  hint: ${error?.hint}`);
  print('  (refused before any request: nothing was sent or charged)');
  print();
}

async function showBudget(client: Client): Promise<void> {
  const status = await client.callTool({ name: 'api_status', arguments: { details: true } });
  const budget = (status.structuredContent as { budget: Record<string, number | string | null> } | undefined)?.budget;
  if (!budget) return;
  print('Budget, from api_status (free):');
  print(`  requests left this minute  ${budget['rate_remaining']} of ${budget['rate_limit_per_window']}`);
  print(
    `  monthly quota left         ${Number(budget['quota_remaining']).toLocaleString('en-US')} of ${Number(budget['quota_limit']).toLocaleString('en-US')} (resets ${budget['quota_resets_at']})`,
  );
  print(`  cached responses           ${budget['cache_entries']}`);
}
