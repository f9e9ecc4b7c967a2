/**
 * The simulated market a trader believes: checked by invariants that hold whatever the
 * seed and the day, never by quoting numbers back. Read as a trader reads it, through the
 * built server's tools, so the same invariants hold on every dialect the simulator speaks
 * (MARKET_DATA_SIM_DIALECT): the server maps our parameters onto the dialect's, or applies
 * them over its pages, and the market must come out the same.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, test } from 'node:test';
import { previousTradingDay, sessionOn, toEt, tradingDayOnOrBefore } from '../../src/catalog/market-calendar.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { connectV2, textOf, type Connected } from '../helpers/mcp.js';
import type { Client } from '@modelcontextprotocol/client';

type Row = Record<string, unknown>;
let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator({ materializationMs: 0, limits: { perWindow: 100_000, perIpPerWindow: 100_000 } });
});
after(async () => {
  await sim.close();
});
let server: Connected<Client> | undefined;
/**
 * A fresh server process: an upstream without rate headers (vendor) gets the spec's 60
 * requests a minute per process, and 500 prints of one name are 10 of its pages.
 */
async function freshServer(): Promise<Connected<Client>> {
  await server?.close();
  // A budget no answer here reaches: the invariants read every row, not a trimmed page.
  server = await connectV2({ baseUrl: sim.url, key: 'sim-live-key', env: { MARKET_DATA_RESULT_TOKENS: '200000' } });
  return server;
}
beforeEach(freshServer);
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The rows a tool answers for `args`, its next_cursor followed up to `limit` rows (all, without one). */
async function rowsOf(tool: string, args: Record<string, unknown>): Promise<Row[]> {
  const client = (server ?? (await freshServer())).client;
  const wanted = typeof args['limit'] === 'number' ? args['limit'] : Infinity;
  const rows: Row[] = [];
  let call: Record<string, unknown> = args;
  for (let page = 0; page < 20 && rows.length < wanted; page += 1) {
    const result = await client.callTool({ name: tool, arguments: call });
    assert.notEqual(result.isError, true, `${tool}: ${textOf(result).slice(0, 300)}`);
    const answer = result.structuredContent as { data: Row[]; meta: { next_cursor?: string } };
    rows.push(...answer.data);
    if (answer.meta.next_cursor === undefined) return rows;
    call = { ...(typeof args['ticker'] === 'string' ? { ticker: args['ticker'] } : {}), cursor: answer.meta.next_cursor };
  }
  assert.ok(rows.length >= wanted, `${tool}: more than 20 pages`);
  return rows.slice(0, wanted);
}
const num = (row: Row | undefined, name: string): number => Number(row?.[name]);
const str = (row: Row | undefined, name: string): string => String(row?.[name]);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const sd = (xs: number[]): number => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1));
};
/** The last session that has closed. */
const closedSession = (): string => previousTradingDay(tradingDayOnOrBefore(toEt(Date.now()).date));

test("dark-pool prints scale with each name's volume and add up to a part of the day's volume the short-volume tool reports", async () => {
  const day = closedSession();
  const ratios: number[] = [];
  for (const ticker of ['AAPL', 'GME', 'SPY', 'KO', 'NVDA']) {
    await freshServer();
    const prints = await rowsOf('darkpool_by_ticker', { ticker, limit: 500, session_date: day });
    const volume = num((await rowsOf('shorts_volume_and_ratio', { ticker, from: day, to: day }))[0], 'total_volume');
    assert.ok(prints.length > 100 && volume > 0, `${ticker}: ${prints.length} prints, volume ${volume}`);
    const printed = prints.reduce((sum, p) => sum + num(p, 'size'), 0);
    assert.ok(printed < 0.5 * volume, `${ticker}: ${printed} shares in ${prints.length} prints against a day's volume of ${volume}`);
    ratios.push(median(prints.map((p) => num(p, 'size'))) / volume);
  }
  // The typical print is the same small part of each name's volume: AAPL's is not GME's.
  assert.ok(Math.max(...ratios) / Math.min(...ratios) < 4, `median print / volume: ${ratios.map((r) => r.toExponential(2)).join(', ')}`);
});

test('the 25-delta risk reversal moves like a series: day-to-day changes far smaller than its swings, and persistent', async () => {
  const from = `${closedSession().slice(0, 4)}-01-02`;
  for (const ticker of ['TSLA', 'SPY', 'GME']) {
    const result = await server?.client.callTool({ name: 'volatility_risk_reversal_skew', arguments: { ticker, from } });
    const answer = result?.structuredContent as { data: Row[]; meta: { covers?: string; notice?: string } } | undefined;
    assert.ok(answer, `${ticker}: ${textOf(result ?? {}).slice(0, 300)}`);
    if (!String(answer.meta.covers).startsWith(from)) {
      // An upstream that takes no `from` (vendor) serves only its default quarter, too short a
      // stretch for this invariant: the server must say so rather than claim the year.
      assert.match(String(answer.meta.notice), /reaches back only to/, `${ticker}: covers ${String(answer.meta.covers)}`);
      continue;
    }
    const rr = answer.data.map((r) => num(r, 'rr25'));
    assert.ok(rr.length > 100, `${ticker}: ${rr.length} days`);
    const changes = rr.slice(1).map((x, i) => x - (rr[i] ?? x));
    assert.ok(sd(changes) < 0.6 * sd(rr), `${ticker}: daily changes ${sd(changes).toFixed(4)} against level spread ${sd(rr).toFixed(4)}`);
  }
});

test('companies report on their own fiscal calendars and file on their own days; the segment mix moves', async () => {
  const yearEnd: Record<string, number> = { AAPL: 9, NVDA: 1, MSFT: 6, ORCL: 5, JPM: 12, KO: 12 };
  const latestFilings = new Set<string>();
  for (const [ticker, month] of Object.entries(yearEnd)) {
    const rows = await rowsOf('fundamentals_fundamental_breakdown', { ticker, limit: 8 });
    assert.equal(rows.length, 8, ticker);
    for (const row of rows) {
      const endMonth = Number(String(row['period_end']).slice(5, 7));
      // A 52/53-week year may end in the first days of the next month; none here do.
      assert.equal(row['form'] === '10-K', endMonth === month, `${ticker} ${String(row['fiscal_period'])} ends in month ${endMonth}`);
      assert.equal(String(row['fiscal_period']).endsWith('Q4'), row['form'] === '10-K');
      assert.ok(String(row['filed_on']) > String(row['period_end']));
    }
    latestFilings.add(String(rows.find((r) => r['form'] === '10-Q')?.['filed_on']));
    const shares = rows.map((r) => num(r, 'top_segment_revenue_usd') / num(r, 'revenue_usd'));
    assert.ok(new Set(shares.map((s) => s.toFixed(4))).size > 1, `${ticker}: the top segment's share varies`);
    assert.deepEqual(
      shares.filter((s) => !(s > 0 && s < 1)),
      [],
      `${ticker}: every top segment is a part of revenue`,
    );
  }
  assert.ok(latestFilings.size >= 4, `latest 10-Q filing days: ${[...latestFilings].join(', ')}`);
});

test('index funds drift slowly between 13F filings; active managers move more', async () => {
  const passive: number[] = [];
  const active: number[] = [];
  for (const ticker of ['AAPL', 'MSFT', 'JPM', 'KO', 'GME']) {
    for (const row of await rowsOf('institutions_ownership_by_ticker', { ticker, limit: 25 })) {
      const change = Math.abs(num(row, 'change_pct'));
      if (/Vanguard|BlackRock|State Street|Geode/.test(String(row['holder']))) passive.push(change);
      else if (/Fidelity|Capital Research|T\. Rowe|Wellington|Citadel/.test(String(row['holder']))) active.push(change);
    }
  }
  assert.ok(passive.length >= 10 && active.length >= 10);
  assert.ok(Math.max(...passive) < 3, `index funds' quarterly changes: ${passive.join(', ')}`);
  assert.ok(median(passive) < median(active) / 2, `median |change| passive ${median(passive)} vs active ${median(active)}`);
});

test('correlations follow the factor structure: SPY moves with QQQ more than with IWM; QQQ and IWM least', async () => {
  for (const lookback of [60, 120, 252]) {
    const rows = await rowsOf('market_correlations', { tickers: 'SPY,QQQ,IWM', lookback_days: lookback });
    const corr = (a: string, b: string): number =>
      num(
        rows.find((r) => r['a'] === a && r['b'] === b),
        'correlation',
      );
    assert.ok(corr('SPY', 'QQQ') > corr('SPY', 'IWM'), `${lookback} days: SPY-QQQ ${corr('SPY', 'QQQ')}, SPY-IWM ${corr('SPY', 'IWM')}`);
    assert.ok(corr('QQQ', 'IWM') < corr('SPY', 'IWM'));
  }
});

test('insider rows name who traded and in what role, and the names add up to the counts and shares', async () => {
  const rows = await rowsOf('insider_buy_sells_by_ticker', { ticker: 'AAPL' });
  assert.ok(rows.length > 3);
  for (const row of rows) {
    const filers = row['filers'] as { name: string; role: string; side: string; shares: number }[];
    assert.ok(Array.isArray(filers) && filers.length === num(row, 'buys') + num(row, 'sells'));
    for (const f of filers) assert.match(`${f.name}|${f.role}`, /^[A-Z][a-z]+ [A-Z][a-z]+\|[A-Z]/);
    const sum = (side: string): number => filers.filter((f) => f.side === side).reduce((s, f) => s + f.shares, 0);
    assert.equal(sum('buy'), num(row, 'buy_shares'));
    assert.equal(sum('sell'), num(row, 'sell_shares'));
  }
});

/** Black-Scholes call value (the simulator's 4 % rate), to read a quote's implied volatility back. */
function callValue(spot: number, strike: number, vol: number, years: number): number {
  const cdf = (x: number): number => {
    const t = 1 / (1 + 0.2316419 * Math.abs(x));
    const poly = t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
    const tail = (Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI)) * poly;
    return x >= 0 ? 1 - tail : tail;
  };
  const d1 = (Math.log(spot / strike) + (0.04 + 0.5 * vol * vol) * years) / (vol * Math.sqrt(years));
  return spot * cdf(d1) - strike * Math.exp(-0.04 * years) * cdf(d1 - vol * Math.sqrt(years));
}

/** The volatility that prices a call at `mid` over `years`, by bisection. */
function impliedVol(mid: number, spot: number, strike: number, years: number): number {
  let low = 0.001;
  let high = 5;
  for (let i = 0; i < 100; i += 1) {
    const vol = (low + high) / 2;
    if (callValue(spot, strike, vol, years) > mid) high = vol;
    else low = vol;
  }
  return (low + high) / 2;
}

test("a same-day SPY call is priced on the session's trading time: near the money it implies 0.6x to 1.6x the 30-day volatility, and 1 % out of the money it is worth more than a tick", async () => {
  const day = closedSession();
  const session = sessionOn(day);
  assert.ok(session);
  // The 30-day level the session's quotes start from: the previous close's.
  const skew = await rowsOf('volatility_risk_reversal_skew', { ticker: 'SPY' });
  const iv30 = num(
    skew.find((r) => r['date'] === previousTradingDay(day)),
    'atm_iv30',
  );
  assert.ok(iv30 > 0, `SPY's 30-day implied volatility on ${previousTradingDay(day)}`);
  // Years left counted as desks count them: the minutes the exchange is open until the close.
  const yearsLeft = (timestamp: string): number => (session.closeAt - Date.parse(timestamp)) / 60_000 / (252 * 390);
  const nearMoney = await rowsOf('options_chain_history', {
    ticker: 'SPY',
    expiration: day,
    right: 'C',
    session_date: day,
    interval: '30m',
  });
  const ratios = nearMoney
    .filter((r) => yearsLeft(str(r, 'timestamp')) * 252 * 390 >= 30)
    // Near the money: within half a standard deviation of the move left in the session.
    .filter(
      (r) => Math.abs(Math.log(num(r, 'strike_usd') / num(r, 'underlying_usd'))) <= 0.5 * iv30 * Math.sqrt(yearsLeft(str(r, 'timestamp'))),
    )
    .map(
      (r) =>
        impliedVol(
          (num(r, 'bid_usd') + num(r, 'ask_usd')) / 2,
          num(r, 'underlying_usd'),
          num(r, 'strike_usd'),
          yearsLeft(str(r, 'timestamp')),
        ) / iv30,
    );
  assert.ok(ratios.length >= 8, `${ratios.length} quotes near the money with half an hour or more left`);
  assert.deepEqual(
    ratios.filter((r) => !(r > 0.6 && r < 1.6)).map((r) => r.toFixed(2)),
    [],
    'implied volatility against the 30-day level, every quote',
  );
  // A strike 1 % above the open: a desk quotes it, it does not sit at 0.00/0.01 all morning.
  const open = num(nearMoney[0], 'underlying_usd');
  const strike = Math.round(open * 1.01);
  const contract = `SPY${day.slice(2).replaceAll('-', '')}C${String(strike * 1000).padStart(8, '0')}`;
  const outOfTheMoney = await rowsOf('options_chain_history', {
    ticker: 'SPY',
    expiration: day,
    right: 'C',
    session_date: day,
    interval: '30m',
    contract,
  });
  const morning = outOfTheMoney.filter((r) => yearsLeft(str(r, 'timestamp')) * 252 * 390 >= 240 && num(r, 'underlying_usd') < strike);
  assert.ok(morning.length > 0, `${contract}: quotes with four hours left and spot below the strike`);
  for (const quote of morning)
    assert.ok(num(quote, 'bid_usd') >= 0.05, `${contract} at ${str(quote, 'timestamp')}: bid ${num(quote, 'bid_usd')}`);
});
