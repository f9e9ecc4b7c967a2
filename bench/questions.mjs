#!/usr/bin/env node
// Replays the trader questions of bench/questions.md through the stdio server in --demo
// mode and prints, per question, the tool calls made, the o200k tokens of what the agent
// reads (structuredContent when present, as Claude Code passes it; else the text) and the
// quota units spent (read from api_status around each question, outside the count; it
// costs no unit). Each question should take at most 3 calls and 8,000 tokens: the `ok`
// column says whether it did, and the exit code is 1 when one did not.
// Usage: node bench/questions.mjs [--plan before|after] [--cli dist/cli.js]
// `before` replays the calls an agent needed on the tools of main before issue 12 (its
// ten questions only).
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { isHalfDay, isTradingDay, latestSession, sessionOn, shiftDate, toEt, weekday } from '../dist/catalog/market-calendar.js';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at === -1 ? fallback : argv[at + 1];
};
const plan = option('--plan', 'after');
const cli = option('--cli', fileURLToPath(new URL('../dist/cli.js', import.meta.url)));

const daysAgo = (n) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const previousWeekday = (date) => {
  let t = Date.parse(`${date}T12:00:00Z`) - 86_400_000;
  while ([0, 6].includes(new Date(t).getUTCDay())) t -= 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
};

/** Follows meta.next_cursor from the first page, at most `max` calls. */
async function follow(call, name, args, max) {
  let result = await call(name, args);
  for (let n = 1; n < max && result?.meta?.next_cursor; n += 1) {
    result = await call(name, { ...args, cursor: result.meta.next_cursor });
  }
}

const ANOMALY = ['AAPL', 'MSFT', 'NVDA', 'TSLA', 'AMD'];
const lastWeekend = () => {
  let t = Date.now() - 86_400_000;
  while (new Date(t).getUTCDay() !== 6) t -= 86_400_000;
  const saturday = new Date(t).toISOString().slice(0, 10);
  return [saturday, new Date(t + 86_400_000).toISOString().slice(0, 10)];
};

/** The latest half day (13:00 close) that has opened, and the latest weekday holiday: answered free, by the calendar. */
const latestHalfDay = () => {
  let day = toEt(Date.now()).date;
  while (!isHalfDay(day) || (sessionOn(day)?.openAt ?? Infinity) > Date.now()) day = shiftDate(day, -1);
  return day;
};
const latestHoliday = () => {
  let day = toEt(Date.now()).date;
  while (isTradingDay(day) || weekday(day) === 0 || weekday(day) === 6) day = shiftDate(day, -1);
  return day;
};

const PLANS = {
  before: [
    (call) => call('derived_dealer_gex_history', { ticker: 'SPY' }),
    (call) => follow(call, 'derived_dealer_gex_history', { ticker: 'QQQ', limit: 60 }, 6),
    (call) => call('shorts_short_screener', { limit: 1000, fields: ['ticker', 'short_float_pct', 'days_to_cover'] }),
    (call) => call('market_oi_change', { limit: 2000 }),
    async (call) => {
      for (const ticker of ANOMALY) await call('volatility_anomaly', { ticker });
    },
    (call) => call('congress_recent_trades', { limit: 500 }),
    (call) => call('volatility_risk_reversal_skew', { ticker: 'TSLA', from: daysAgo(30) }),
    (call) => call('shorts_volume_and_ratio', { ticker: 'AMC', from: daysAgo(14) }),
    (call) => follow(call, 'derived_dealer_gex_history', { ticker: 'SPY', limit: 60 }, 3),
    (call) => call('api_status', {}),
  ],
  after: [
    (call) => call('derived_dealer_gex_history', { ticker: 'SPY' }),
    (call) => call('derived_dealer_gex_history', { ticker: 'QQQ', view: 'sessions' }),
    (call) => call('shorts_short_screener', { tickers: 'GME' }),
    (call) => call('market_oi_change', { tickers: 'NVDA', direction: 'increase', limit: 20 }),
    (call) => call('volatility_compare', { tickers: ANOMALY.join(','), measure: 'anomaly' }),
    (call) => call('congress_recent_trades', { tickers: 'NVDA', side: 'buy', from: daysAgo(14) }),
    (call) => call('volatility_risk_reversal_skew', { ticker: 'TSLA', from: daysAgo(30) }),
    (call) => call('shorts_volume_and_ratio', { ticker: 'AMC', from: daysAgo(14) }),
    async (call, context) =>
      call('derived_dealer_gex_history', { ticker: 'SPY', view: 'levels', session_date: previousWeekday(context.newestSession) }),
    (call) => call('api_status', {}),
    (call) => call('derived_dealer_gex_history', { ticker: 'SPX', view: 'sessions' }),
    (call) => call('volatility_compare', { sector: 'Technology', measure: 'skew' }),
    (call) => call('darkpool_by_ticker', { ticker: 'AAPL', min_notional_usd: 5_000_000, from_time: '14:00' }),
    (call) => call('stocks_lit_trades_recent', { tickers: 'TSLA', limit: 1000, fields: ['price_usd', 'size', 'executed_at'] }),
    (call) => call('market_total_options_volume', { from: lastWeekend()[0], to: lastWeekend()[1] }),
    (call) => call('derived_dealer_gex_history', { ticker: 'SPY', view: 'levels', session_date: daysAgo(21) }),
    (call) => call('darkpool_by_ticker', { ticker: 'AAPL', from_time: '09:30', to_time: '10:30', min_size: 10_000 }),
    // Issue 32: several names in one call, nothing charged twice or for nothing, costs known before.
    (call) => call('derived_dealer_gex_compare', { tickers: 'SPY,QQQ,IWM,DIA,TSLA' }),
    (call) => call('derived_dealer_gex_compare', { sector: 'Technology', view: 'sessions' }),
    (call) => call('shorts_sector_screener', { sector: 'Healthcare' }),
    (call) => call('ticker_briefing', { ticker: 'GME' }),
    async (call) => {
      await call('derived_dealer_gex_history', { ticker: 'IWM', view: 'sessions' });
      await call('derived_dealer_gex_history', { ticker: 'IWM', view: 'sessions' });
    },
    (call) => call('darkpool_by_ticker', { ticker: 'AAPL', session_date: latestHalfDay(), from_time: '15:00', to_time: '16:00' }),
    (call) => call('options_chain_history', { ticker: 'SPY', expiration: latestHoliday(), right: 'C' }),
    (call) => call('api_status', {}),
    (call) => call('fundamentals_fundamental_breakdown', { ticker: 'NVDA', limit: 1 }),
    (call) => {
      const day = latestSession(Date.now()).date;
      return call('options_chain_history', { ticker: 'SPY', expiration: day, session_date: day, right: 'C', interval: '1h' });
    },
  ],
};

const steps = PLANS[plan];
if (!steps) throw new Error(`unknown plan ${plan}`);
const client = new Client({ name: 'bench-questions', version: '1.0.0' });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [cli, '--demo'],
    env: { ...process.env, MARKET_DATA_LOG_LEVEL: 'warn' },
    stderr: 'ignore',
  }),
);
const { tools } = await client.listTools();
const out = (line) => process.stdout.write(`${line}\n`);
const MAX_CALLS = 3;
const MAX_TOKENS = 8000;
out(`plan ${plan}: tools/list ${tools.length} tools, ${countTokens(JSON.stringify({ tools }))} o200k tokens`);
out(`| # | calls | tokens | units | largest result | errors | ok (<= ${MAX_CALLS} calls, <= ${MAX_TOKENS} tokens) |`);
out('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
const context = { newestSession: new Date().toISOString().slice(0, 10) };
/** Quota units left, as the account gate saw them in the last answer's headers (api_status is free). */
const quotaLeft = async () => {
  const status = await client.callTool({ name: 'api_status', arguments: {} });
  return status.structuredContent?.budget?.quota_remaining ?? null;
};
let totalCalls = 0;
let totalTokens = 0;
let totalUnits = 0;
let failed = 0;
for (const [i, step] of steps.entries()) {
  let calls = 0;
  let tokens = 0;
  let largest = 0;
  let errors = 0;
  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    const seen = result.structuredContent ?? result.content;
    const n = countTokens(JSON.stringify(seen));
    calls += 1;
    tokens += n;
    largest = Math.max(largest, n);
    if (result.isError) errors += 1;
    const structured = result.structuredContent ?? {};
    const first = Array.isArray(structured.data) ? structured.data[0] : undefined;
    if (name === 'derived_dealer_gex_history' && first?.session_date_et) context.newestSession = first.session_date_et;
    return structured;
  };
  const before = await quotaLeft();
  await step(call, context);
  const after = await quotaLeft();
  const units = before !== null && after !== null ? before - after : null;
  const ok = calls <= MAX_CALLS && tokens <= MAX_TOKENS;
  if (!ok) failed += 1;
  totalCalls += calls;
  totalTokens += tokens;
  totalUnits += units ?? 0;
  out(`| ${i + 1} | ${calls} | ${tokens} | ${units ?? '?'} | ${largest} | ${errors} | ${ok ? 'yes' : 'NO'} |`);
}
out(`| all | ${totalCalls} | ${totalTokens} | ${totalUnits} | | | ${failed === 0 ? 'yes' : `${failed} over`} |`);
await client.close();
if (plan === 'after' && failed > 0) process.exitCode = 1;
