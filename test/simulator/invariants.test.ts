/**
 * The reference market's invariants, across datasets: properties that hold for any clock,
 * seed and symbol set, drawn by fast-check, rather than numbers copied from one run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isTradingDay, latestSession, sessionOn, toEt, weekday } from '../../src/catalog/market-calendar.js';
import { NODE_TYPES } from '../../src/simulator/dealer-gex.js';
import { isCatalogOperation, type CatalogOperationId } from '../../src/simulator/generators/index.js';
import { closeOn } from '../../src/simulator/market.js';
import { REFERENCE, STOCKS, referenceSymbol } from '../../src/simulator/reference.js';
import { DATASETS } from '../../src/catalog/index.js';
import { eigenvalues, generate, rows, type Rows } from '../helpers/market.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

const clock = fc.integer({ min: Date.parse('2024-03-01'), max: Date.parse('2027-06-30') });
// A few seeds: each one builds its market's histories once, and the clock draws do the rest.
const seed = fc.constantFrom(7, 11, 42);
const num = (row: Record<string, unknown> | undefined, key: string): number => Number(row?.[key]);
const str = (row: Record<string, unknown> | undefined, key: string): string => String(row?.[key]);

/** Whether an ISO instant lies inside the session of its own ET date. */
function insideSession(iso: string): boolean {
  const instant = Date.parse(iso);
  const session = sessionOn(toEt(instant).date);
  return session !== undefined && instant > session.openAt - 1 && instant <= session.closeAt;
}

test('every catalog dataset has its own generator, and a dataset registered at run time has none', () => {
  assert.ok(DATASETS.length > 20);
  assert.deepEqual(
    DATASETS.filter((d) => !isCatalogOperation(d.operationId)).map((d) => d.operationId),
    [],
  );
  assert.equal(isCatalogOperation('etf.flows_by_ticker'), false);
});

test('limit never changes a value: a smaller page is a prefix of a larger one', () => {
  const listed: [CatalogOperationId, string | undefined][] = [
    ['shorts.short_screener', undefined],
    ['market.oi_change', undefined],
    ['stocks.lit_trades_recent', undefined],
    ['volatility.character_top', undefined],
    ['congress.recent_trades', undefined],
    ['market.total_options_volume', undefined],
    ['stocks.ticker_exchanges', undefined],
    ['darkpool.by_ticker', 'NVDA'],
    ['institutions.ownership_by_ticker', 'MSFT'],
    ['stocks.dividends', 'KO'],
    ['fundamentals.fundamental_breakdown', 'AAPL'],
  ];
  fc.assert(
    fc.property(
      clock,
      seed,
      fc.constantFrom(...listed),
      fc.integer({ min: 1, max: 15 }),
      fc.integer({ min: 16, max: 40 }),
      (now, s, [id, ticker], small, large) => {
        const a = rows(generate(id, now, { limit: small }, ticker, s));
        const b = rows(generate(id, now, { limit: large }, ticker, s));
        assert.deepEqual(a, b.slice(0, a.length), id);
      },
    ),
    { numRuns: 40 },
  );
});

test('the ticker directory names each company once, as a listing does, at its largest page', () => {
  fc.assert(
    fc.property(clock, fc.integer({ min: 1, max: 100_000 }), (now, s) => {
      const tickers = rows(generate('stocks.ticker_exchanges', now, { limit: 3000 }, undefined, s)).map((row) => str(row, 'ticker'));
      assert.equal(tickers.length, 3000);
      const twice = tickers.filter((ticker, i) => tickers.indexOf(ticker) !== i);
      assert.deepEqual(twice, [], `seed ${s}`);
    }),
    { numRuns: 12 },
  );
});

test('no timestamp outside a session: prints, bars and snapshots, whatever the clock says', () => {
  fc.assert(
    fc.property(clock, seed, (now, s) => {
      const stamps = [
        ...rows(generate('stocks.lit_trades_recent', now, { limit: 50 }, undefined, s)).map((r) => str(r, 'executed_at')),
        ...rows(generate('darkpool.by_ticker', now, { limit: 50 }, 'AMD', s)).map((r) => str(r, 'executed_at')),
        ...rows(generate('options.chain_history', now, { expiration: '2027-12-17', right: 'C', interval: '30m' }, 'SPY', s)).map((r) =>
          str(r, 'timestamp'),
        ),
        ...rows(generate('derived.dealer_gex_history', now, { limit: 60 }, 'QQQ', s)).map((r) => str(r, 'snapshot_at')),
      ];
      for (const stamp of stamps) {
        assert.ok(insideSession(stamp), `${stamp} is outside a session`);
        assert.ok(Date.parse(stamp) <= now, `${stamp} is in the future`);
      }
      const latest = latestSession(now);
      for (const row of rows(generate('darkpool.by_ticker', now, { limit: 5 }, 'AMD', s)))
        assert.equal(row['session_date_et'], latest.date);
    }),
    { numRuns: 30 },
  );
});

test('FX quotes stop over the weekend: a Sunday morning reads Friday 17:00 ET', () => {
  fc.assert(
    fc.property(clock, (now) => {
      const quote = rows(generate('macro.forex_rate', now, { pair: 'EURUSD' }))[0];
      const asOf = Date.parse(str(quote, 'as_of'));
      assert.ok(asOf <= now);
      const et = toEt(asOf);
      const day = weekday(et.date);
      assert.ok(day !== 6, 'no Saturday quote');
      assert.ok(!(day === 0 && et.minutes < 17 * 60), 'no Sunday quote before the open');
      assert.ok(!(day === 5 && et.minutes > 17 * 60), 'no Friday quote after the close');
    }),
    { numRuns: 200 },
  );
});

test('correlation matrices are symmetric with a unit diagonal and no negative eigenvalue', () => {
  const tickers = REFERENCE.map((s) => s.ticker);
  fc.assert(
    fc.property(
      clock,
      seed,
      fc.uniqueArray(fc.constantFrom(...tickers), { minLength: 2, maxLength: 10 }),
      fc.integer({ min: 20, max: 252 }),
      (now, s, set, lookback) => {
        const pairs = rows(generate('market.correlations', now, { tickers: set.join(','), lookback_days: lookback }, undefined, s));
        assert.equal(pairs.length, (set.length * (set.length - 1)) / 2);
        const index = new Map(set.map((t, i) => [t, i]));
        const matrix = set.map((_, i) => set.map((__, j) => (i === j ? 1 : Number.NaN)));
        for (const pair of pairs) {
          const i = index.get(str(pair, 'a')) ?? -1;
          const j = index.get(str(pair, 'b')) ?? -1;
          const value = num(pair, 'correlation');
          assert.ok(value >= -1 && value <= 1);
          const ri = matrix[i];
          const rj = matrix[j];
          assert.ok(ri && rj);
          ri[j] = value;
          rj[i] = value;
        }
        for (const row of matrix) for (const value of row) assert.ok(Number.isFinite(value), 'every pair present');
        // Values are rounded to 4 decimals: by Weyl's inequality that moves an eigenvalue by at most n * 5e-5.
        const smallest = Math.min(...eigenvalues(matrix));
        assert.ok(smallest >= -set.length * 5e-5, `smallest eigenvalue ${smallest}`);
      },
    ),
    { numRuns: 40 },
  );
});

test('correlations read like markets: equity indices move together, bonds and gold do not follow them', () => {
  const now = Date.parse('2026-11-20T22:00:00Z');
  const pairs = rows(generate('market.correlations', now, { tickers: 'SPY,QQQ,IWM,TLT,GLD', lookback_days: 252 }));
  const corr = (a: string, b: string): number =>
    num(
      pairs.find((p) => p['a'] === a && p['b'] === b),
      'correlation',
    );
  assert.ok(corr('SPY', 'QQQ') > 0.8 && corr('SPY', 'IWM') > 0.6, 'equity ETFs');
  assert.ok(Math.abs(corr('SPY', 'TLT')) < 0.4 && Math.abs(corr('SPY', 'GLD')) < 0.4, 'bonds and gold');
});

test('dealer GEX: levels are consistent with their strikes and with spot, snapshot after snapshot', () => {
  const dealerTickers = REFERENCE.filter((s) => /^[A-Z]{1,5}$/.test(s.ticker)).map((s) => s.ticker);
  fc.assert(
    fc.property(clock, seed, fc.constantFrom(...dealerTickers), (now, s, ticker) => {
      const snapshots = rows(generate('derived.dealer_gex_history', now, { limit: 30 }, ticker, s));
      assert.ok(snapshots.length > 0);
      for (const snapshot of snapshots) {
        const strikes = snapshot['strikes'] as {
          strike_usd: number;
          net_gex_usd: number;
          node_type: string;
          rank: number;
          relative_strength: number;
        }[];
        const summary = snapshot['summary'] as Record<string, number>;
        const spot = num(snapshot, 'spot_usd');
        const total = strikes.reduce((sum, k) => sum + k.net_gex_usd, 0);
        assert.equal(summary['total_gex_usd'], total, 'total is the sum of the strikes');
        const flip = summary['gamma_flip_usd'] ?? Number.NaN;
        assert.equal(spot > flip, total > 0, `spot ${spot} vs flip ${flip} agrees with the sign of total GEX ${total}`);
        const byAbs = [...strikes].sort((a, b) => Math.abs(b.net_gex_usd) - Math.abs(a.net_gex_usd));
        assert.equal(summary['king_strike_usd'], byAbs[0]?.strike_usd, 'king = largest |net GEX|');
        assert.deepEqual(
          strikes.map((k) => k.rank).sort((a, b) => a - b),
          strikes.map((_, i) => i + 1),
          'ranks are a permutation',
        );
        const byNet = [...strikes].sort((a, b) => b.net_gex_usd - a.net_gex_usd);
        if ((byNet[0]?.net_gex_usd ?? 0) > 0) assert.equal(summary['major_positive_strike_usd'], byNet[0]?.strike_usd);
        if ((byNet[byNet.length - 1]?.net_gex_usd ?? 0) < 0)
          assert.equal(summary['major_negative_strike_usd'], byNet[byNet.length - 1]?.strike_usd);
        const callWall = strikes.find((k) => k.strike_usd === summary['call_wall_strike_usd']);
        const putWall = strikes.find((k) => k.strike_usd === summary['put_wall_strike_usd']);
        if (strikes.some((k) => k.net_gex_usd > 0 && k.strike_usd >= spot))
          assert.ok(callWall && callWall.net_gex_usd > 0 && callWall.strike_usd >= spot, 'call wall: positive, at or above spot');
        if (strikes.some((k) => k.net_gex_usd < 0 && k.strike_usd <= spot))
          assert.ok(putWall && putWall.net_gex_usd < 0 && putWall.strike_usd <= spot, 'put wall: negative, at or below spot');
        for (const k of strikes) assert.ok((NODE_TYPES as readonly string[]).includes(k.node_type), k.node_type);
        const lows = strikes[0]?.strike_usd ?? 0;
        const highs = strikes[strikes.length - 1]?.strike_usd ?? 0;
        assert.ok(spot > lows * 0.85 && spot < highs * 1.15, 'spot is near the strikes it is measured against');
      }
      // Spot moves along a path: 5 minutes apart, within six standard deviations of a 5-minute move (plus a cent).
      const sigma = (referenceSymbol(ticker)?.iv ?? 1) / Math.sqrt(252 * 78);
      for (let i = 1; i < snapshots.length; i += 1) {
        const a = snapshots[i - 1];
        const b = snapshots[i];
        if (a?.['session_date_et'] !== b?.['session_date_et']) continue;
        const move = Math.abs(num(a, 'spot_usd') / num(b, 'spot_usd') - 1);
        assert.ok(move < 6 * sigma + 0.01 / num(b, 'spot_usd'), `spot drifts, it does not jump (${move})`);
      }
    }),
    { numRuns: 25 },
  );
});

test('dealer GEX: the gamma flip is a real zero crossing near spot, never the edge of a search', () => {
  // Liquid index ETFs and mega caps: deep chains on both sides of the money, so the flip sits among
  // the open interest, between the put side below and the call side above. Band: the ETFs within
  // 5 % of spot (real SPY/QQQ/IWM/DIA flips sit within a few percent); the single names within two
  // weekly standard deviations (iv·√(5/252)·2: about 7 % for AAPL, 13 % for NVDA), the span the
  // weeklies' open interest covers around the money. Either way far inside the ±25 % a bounded
  // search used to report as a level when the total never crossed.
  const etfs = ['SPY', 'QQQ', 'IWM', 'DIA'];
  const largeCaps = ['AAPL', 'MSFT', 'NVDA', 'AMZN', 'GOOGL', 'META'];
  fc.assert(
    fc.property(clock, seed, fc.constantFrom(...etfs, ...largeCaps), (now, s, ticker) => {
      const iv = referenceSymbol(ticker)?.iv ?? 1;
      const band = etfs.includes(ticker) ? 0.05 : 2 * iv * Math.sqrt(5 / 252);
      const snapshots = rows(generate('derived.dealer_gex_history', now, { limit: 80 }, ticker, s));
      let prev: Record<string, unknown> | undefined;
      for (const snapshot of snapshots) {
        const summary = snapshot['summary'] as Record<string, number>;
        const spot = num(snapshot, 'spot_usd');
        const flip = summary['gamma_flip_usd'] ?? Number.NaN;
        const total = summary['total_gex_usd'] ?? Number.NaN;
        const at = str(snapshot, 'snapshot_at');
        const distance = Math.abs(flip / spot - 1);
        for (const bound of [0.25, 0.5])
          assert.ok(
            Math.abs(distance - bound) > 0.001,
            `${ticker} ${at}: flip ${flip} is the ±${bound * 100} % search bound (spot ${spot})`,
          );
        assert.ok(
          distance <= band,
          `${ticker} ${at}: flip ${flip} is ${(distance * 100).toFixed(1)} % from spot ${spot}, band ${(band * 100).toFixed(1)} %`,
        );
        assert.equal(spot > flip, total > 0, `${ticker} ${at}: spot ${spot} vs flip ${flip} agrees with the sign of total GEX ${total}`);
        // The flip is a property of the session's open interest: 5 minutes later it has drifted, not jumped.
        if (prev && prev['session_date_et'] === snapshot['session_date_et']) {
          const before = (prev['summary'] as Record<string, number>)['gamma_flip_usd'] ?? Number.NaN;
          assert.ok(Math.abs(before / flip - 1) < 0.02, `${ticker} ${at}: flip jumped from ${before} to ${flip}`);
        }
        prev = snapshot;
      }
    }),
    { numRuns: 30 },
  );
});

test('dealer GEX: put wall below the call wall, puts under spot and calls over it in most snapshots', () => {
  const dealerTickers = REFERENCE.filter((s) => /^[A-Z]{1,5}$/.test(s.ticker) && s.price >= 20).map((s) => s.ticker);
  fc.assert(
    fc.property(clock, seed, fc.constantFrom(...dealerTickers), (now, s, ticker) => {
      const snapshots = rows(generate('derived.dealer_gex_history', now, { limit: 80 }, ticker, s));
      let sided = 0;
      for (const snapshot of snapshots) {
        const summary = snapshot['summary'] as Record<string, number>;
        const spot = num(snapshot, 'spot_usd');
        const putWall = summary['put_wall_strike_usd'] ?? Number.NaN;
        const callWall = summary['call_wall_strike_usd'] ?? Number.NaN;
        assert.ok(putWall <= callWall, `${ticker} ${str(snapshot, 'snapshot_at')}: put wall ${putWall} above call wall ${callWall}`);
        // A wall "near" spot: within one percent on the wrong side still reads as at the money.
        if (putWall <= spot * 1.01 && callWall >= spot * 0.99) sided += 1;
      }
      // Robust to the odd snapshot where spot ran through a whole side of the chain.
      assert.ok(sided >= 0.8 * snapshots.length, `${ticker}: walls on their sides of spot in ${sided} of ${snapshots.length} snapshots`);
    }),
    { numRuns: 30 },
  );
});

test('sorted orders hold: largest OI changes, holders, short screener, IV-RV leaderboard', () => {
  fc.assert(
    fc.property(clock, seed, (now, s) => {
      const descending = (list: Rows, key: (r: Record<string, unknown>) => number): void => {
        for (let i = 1; i < list.length; i += 1) assert.ok(key(list[i - 1] ?? {}) >= key(list[i] ?? {}), `sorted on ${i}`);
      };
      const oi = rows(generate('market.oi_change', now, { limit: 200 }, undefined, s));
      descending(oi, (r) => Math.abs(num(r, 'oi_change')));
      assert.equal(new Set(oi.map((r) => r['contract'])).size, oi.length, 'no duplicate contract');
      for (const r of oi) assert.equal(num(r, 'prev_open_interest') + num(r, 'oi_change'), num(r, 'open_interest'));
      descending(rows(generate('institutions.ownership_by_ticker', now, { limit: 25 }, 'AAPL', s)), (r) => num(r, 'shares'));
      descending(rows(generate('shorts.short_screener', now, { limit: 100 }, undefined, s)), (r) => num(r, 'short_float_pct'));
      descending(rows(generate('volatility.character_top', now, { limit: 100 }, undefined, s)), (r) => num(r, 'iv_rv_spread'));
    }),
    { numRuns: 20 },
  );
});

test('the same fact is the same number across tools', () => {
  fc.assert(
    fc.property(clock, seed, fc.constantFrom('SPY', 'QQQ', 'TSLA', 'GME', 'AAPL'), (now, s, ticker) => {
      const anomaly = rows(generate('volatility.anomaly', now, {}, ticker, s))[0];
      const leaderboard = rows(generate('volatility.character_top', now, { limit: 200 }, undefined, s)).find((r) => r['ticker'] === ticker);
      const skew = rows(generate('volatility.risk_reversal_skew', now, {}, ticker, s))[0];
      assert.equal(num(anomaly, 'iv30'), num(leaderboard, 'iv30'), '30-day IV: anomaly vs leaderboard');
      assert.equal(num(anomaly, 'iv30'), num(skew, 'atm_iv30'), '30-day IV: anomaly vs skew series');
      assert.equal(anomaly?.['session_date_et'], skew?.['date']);

      const venues = rows(generate('shorts.volumes_by_exchange', now, {}, ticker, s));
      const venueDays = new Set(venues.map((v) => v['date']));
      const days = rows(generate('shorts.volume_and_ratio', now, {}, ticker, s));
      assert.ok(days.some((d) => venueDays.has(d['date'])));
      for (const day of days.filter((d) => venueDays.has(d['date']))) {
        const sum = venues.filter((v) => v['date'] === day['date']).reduce((total, v) => total + num(v, 'short_volume'), 0);
        assert.equal(sum, num(day, 'short_volume'), `venues add up on ${str(day, 'date')}`);
        assert.ok(num(day, 'short_volume') <= num(day, 'total_volume'));
      }
    }),
    { numRuns: 15 },
  );
});

test('short interest: companies only, in realistic ranges, shares agreeing with the percentage', () => {
  fc.assert(
    fc.property(clock, seed, (now, s) => {
      const screener = rows(generate('shorts.short_screener', now, { limit: 1000 }, undefined, s));
      assert.equal(screener.length, STOCKS.length);
      for (const row of screener) {
        assert.equal(referenceSymbol(str(row, 'ticker'))?.kind, 'stock', 'no ETF or index in a stock screener');
        const pct = num(row, 'short_float_pct');
        assert.ok(pct > 0 && pct < 50, `${str(row, 'ticker')} ${pct} %`);
        assert.ok(Math.abs((num(row, 'short_interest_shares') / num(row, 'float_shares')) * 100 - pct) < 0.01);
        assert.ok(num(row, 'days_to_cover') > 0.1 && num(row, 'days_to_cover') < 20, `${str(row, 'ticker')} days to cover`);
        assert.ok(isTradingDay(str(row, 'settlement_date')));
      }
      // The crowded shorts a trader knows sit above the mega caps.
      const rank = (t: string): number => screener.findIndex((r) => r['ticker'] === t);
      for (const meme of ['GME', 'AMC', 'BYND'])
        for (const mega of ['AAPL', 'MSFT', 'BRK.B']) assert.ok(rank(meme) < rank(mega), `${meme} above ${mega}`);
    }),
    { numRuns: 10 },
  );
});

test('dividends only for payers, on trading days, newest first', () => {
  const now = Date.parse('2026-11-20T22:00:00Z');
  for (const symbol of REFERENCE.filter((s) => s.kind !== 'index')) {
    const list = rows(generate('stocks.dividends', now, { limit: 12 }, symbol.ticker));
    assert.equal(list.length > 0, symbol.dividend !== null, `${symbol.ticker} pays: ${String(symbol.dividend !== null)}`);
    for (let i = 0; i < list.length; i += 1) {
      const row = list[i];
      assert.ok(num(row, 'amount_usd') > 0 && isTradingDay(str(row, 'ex_date')));
      assert.ok(str(row, 'pay_date') > str(row, 'ex_date'));
      if (i > 0) assert.ok(str(list[i - 1], 'ex_date') > str(row, 'ex_date'));
    }
    // A year of payments adds up to about the annual policy.
    if (symbol.dividend && list.length >= 12) {
      const perYear = { monthly: 12, quarterly: 4, semiannual: 2, annual: 1 }[symbol.dividend.frequency];
      const lastYear = list.slice(0, perYear).reduce((sum, r) => sum + num(r, 'amount_usd'), 0);
      assert.ok(Math.abs(lastYear / symbol.dividend.annualUsd - 1) < 0.06, `${symbol.ticker} ${lastYear}`);
    }
  }
});

test('insider, fundamentals and holders rows are internally consistent', () => {
  fc.assert(
    fc.property(clock, seed, fc.constantFrom(...STOCKS.map((s) => s.ticker)), (now, s, ticker) => {
      const symbol = referenceSymbol(ticker);
      assert.ok(symbol);
      for (const day of rows(generate('insider.buy_sells_by_ticker', now, {}, ticker, s))) {
        assert.equal(num(day, 'buys') === 0, num(day, 'buy_notional_usd') === 0, 'no notional without a buy');
        assert.equal(num(day, 'sells') === 0, num(day, 'sell_notional_usd') === 0, 'no notional without a sale');
        const shares = num(day, 'buy_shares') + num(day, 'sell_shares');
        const price = (num(day, 'buy_notional_usd') + num(day, 'sell_notional_usd')) / shares;
        assert.ok(Math.abs(price / closeOn(s, symbol, str(day, 'date')) - 1) < 0.01, 'notional = shares x that day’s close');
      }
      const segments = (symbol.segments ?? []).map(([name]) => name);
      for (const quarter of rows(generate('fundamentals.fundamental_breakdown', now, { limit: 8 }, ticker, s))) {
        assert.ok(segments.includes(str(quarter, 'top_segment')), `${ticker}: ${str(quarter, 'top_segment')} is one of its segments`);
        assert.ok(num(quarter, 'top_segment_revenue_usd') <= num(quarter, 'revenue_usd'));
        assert.ok(str(quarter, 'filed_on') > str(quarter, 'period_end'));
      }
      const holders = rows(generate('institutions.ownership_by_ticker', now, { limit: 25 }, ticker, s));
      const held = holders.reduce((sum, h) => sum + num(h, 'shares'), 0);
      assert.ok(held < symbol.floatM * 1e6, 'holders own less than the float');
    }),
    { numRuns: 25 },
  );
});

test('plausible ranges: prices stay near their reference, FX near real levels, IV near its level', () => {
  fc.assert(
    fc.property(clock, seed, (now, s) => {
      const date = latestSession(now).date;
      for (const symbol of REFERENCE) {
        const close = closeOn(s, symbol, date);
        assert.ok(close > symbol.price * 0.35 && close < symbol.price * 2.5, `${symbol.ticker} at ${close}`);
      }
      const rate = (pair: string): number => num(rows(generate('macro.forex_rate', now, { pair }, undefined, s))[0], 'rate');
      assert.ok(rate('EURUSD') > 0.95 && rate('EURUSD') < 1.4, `EURUSD ${rate('EURUSD')}`);
      assert.ok(rate('USDJPY') > 120 && rate('USDJPY') < 190, `USDJPY ${rate('USDJPY')}`);
      assert.ok(Math.abs(rate('EURUSD') * rate('USDJPY') - rate('EURJPY')) / rate('EURJPY') < 1e-3, 'crosses are consistent');
      for (const row of rows(generate('volatility.character_top', now, { limit: 200 }, undefined, s))) {
        const level = referenceSymbol(str(row, 'ticker'))?.iv ?? 0;
        assert.ok(num(row, 'iv30') > level * 0.4 && num(row, 'iv30') < level * 2.5, `${str(row, 'ticker')} iv30`);
      }
    }),
    { numRuns: 15 },
  );
});

test('option chain history rows carry a timestamp and a strike, with bid at or below ask', () => {
  const now = Date.parse('2026-11-20T18:00:00Z');
  const bars = rows(generate('options.chain_history', now, { expiration: '2026-12-18', right: 'P', interval: '15m' }, 'AAPL'));
  assert.ok(bars.length > 0);
  for (const bar of bars) {
    assert.ok(insideSession(str(bar, 'timestamp')));
    assert.ok(num(bar, 'strike_usd') > 0 && str(bar, 'contract').includes('261218P'));
    assert.ok(num(bar, 'bid_usd') <= num(bar, 'ask_usd'));
  }
});

test('an index and its ETF are one market: SPY holds a steady tenth of SPX all session, and their dealer gamma mostly agrees in sign', () => {
  fc.assert(
    fc.property(clock, seed, fc.constantFrom(['SPX', 'SPY'], ['NDX', 'QQQ'], ['RUT', 'IWM']), (now, s, [index, etf]) => {
      const indexSnapshots = rows(generate('derived.dealer_gex_history', now, { limit: 240 }, index, s));
      const etfByTime = new Map(
        rows(generate('derived.dealer_gex_history', now, { limit: 240 }, etf, s)).map((r) => [str(r, 'snapshot_at'), r]),
      );
      const bySession = new Map<string, number[]>();
      let same = 0;
      let paired = 0;
      for (const snapshot of indexSnapshots) {
        const other = etfByTime.get(str(snapshot, 'snapshot_at'));
        if (!other) continue;
        paired += 1;
        const ratios = bySession.get(str(snapshot, 'session_date_et')) ?? [];
        ratios.push(num(snapshot, 'spot_usd') / num(other, 'spot_usd'));
        bySession.set(str(snapshot, 'session_date_et'), ratios);
        const total = (r: Record<string, unknown>): number => (r['summary'] as Record<string, number>)['total_gex_usd'] ?? Number.NaN;
        if (Math.sign(total(snapshot)) === Math.sign(total(other))) same += 1;
      }
      assert.ok(paired > 0, `${index} and ${etf} share snapshot times`);
      for (const [date, ratios] of bySession) {
        const spread = Math.max(...ratios) / Math.min(...ratios) - 1;
        // Tracking error within a session is basis points; independent paths drifted 2.5 % apart.
        assert.ok(spread < 0.003, `${index}/${etf} on ${date}: the price ratio moved ${(spread * 100).toFixed(2)} % within the session`);
      }
      // Same market, same customers: the sign differs only where spot sits near both flips.
      assert.ok(same / paired >= 0.6, `${index} and ${etf} agree on the sign of dealer gamma in ${same} of ${paired} snapshots`);
    }),
    { numRuns: 12 },
  );
});

test('dividends start where the company began paying: none before, every quarter since', () => {
  const recentPayers = REFERENCE.filter((s) => s.dividend?.since !== undefined);
  assert.ok(
    recentPayers.some((s) => s.ticker === 'AAPL'),
    'AAPL resumed paying in 2012',
  );
  fc.assert(
    fc.property(clock, seed, fc.constantFrom(...recentPayers), (now, s, symbol) => {
      const since = symbol.dividend?.since ?? '';
      const paid = rows(generate('stocks.dividends', now, { limit: 200 }, symbol.ticker, s)).map((r) => str(r, 'ex_date'));
      assert.deepEqual(
        paid.filter((d) => d < since),
        [],
        `${symbol.ticker}: ex-dates before its first payment ${since}`,
      );
      const years = (Date.parse(latestSession(now).date) - Date.parse(since)) / (365.25 * 86_400_000);
      // Quarterly since then, less the one whose ex-date may not have come yet.
      if (years > 0)
        assert.ok(paid.length >= Math.floor(years * 4) - 1, `${symbol.ticker}: ${paid.length} payments in ${years.toFixed(1)} years`);
      else assert.equal(paid.length, 0, `${symbol.ticker}: no payment before its first`);
    }),
    { numRuns: 30 },
  );
});
