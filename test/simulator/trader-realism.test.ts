/**
 * What a desk would check before trusting the simulated market (issue 32), each as an
 * invariant over clocks, seeds and names drawn by fast-check: the gamma flip moves with spot
 * and positioning during a session; open-interest changes sit near the money and scale with
 * each name's option volume; companies report on their own calendars with every segment and
 * the fiscal year's end; insiders have names and roles of their own. The options' pricing on
 * trading time is read through the built server (test/simulator/realism.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { previousTradingDay, sessionOn, shiftDate, toEt } from '../../src/catalog/market-calendar.js';
import { dailyFlow } from '../../src/simulator/generators/options.js';
import { closeOn, iv30On } from '../../src/simulator/market.js';
import { tradingMinutesBetween } from '../../src/simulator/trading-time.js';
import { referenceSymbol, STOCKS } from '../../src/simulator/reference.js';
import { generate, rows } from '../helpers/market.js';
import { replayPropertySeed } from '../helpers/property-seed.js';

replayPropertySeed();

const clock = fc.integer({ min: Date.parse('2024-03-01'), max: Date.parse('2027-06-30') });
const seed = fc.constantFrom(7, 11, 42);
type Row = Record<string, unknown>;
const num = (row: Row | undefined, key: string): number => Number(row?.[key]);
const str = (row: Row | undefined, key: string): string => String(row?.[key]);
const summary = (row: Row, key: string): number => Number((row['summary'] as Record<string, unknown>)[key]);
function correlation(a: readonly number[], b: readonly number[]): number {
  const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(a);
  const mb = mean(b);
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  a.forEach((x, i) => {
    const y = b[i] ?? mb;
    sab += (x - ma) * (y - mb);
    saa += (x - ma) ** 2;
    sbb += (y - mb) ** 2;
  });
  return saa === 0 || sbb === 0 ? 0 : sab / Math.sqrt(saa * sbb);
}

test('dealer GEX: within a session the gamma flip moves with spot and with positioning, never flat', () => {
  const tickers = ['SPY', 'QQQ', 'IWM', 'AAPL', 'NVDA', 'TSLA', 'MSFT', 'JPM', 'KO', 'XOM'];
  const correlations: number[] = [];
  const ranges: number[] = [];
  fc.assert(
    fc.property(clock, seed, fc.constantFrom(...tickers), (now, s, ticker) => {
      const snapshots = rows(generate('derived.dealer_gex_history', now, { limit: 240 }, ticker, s));
      const bySession = new Map<string, Row[]>();
      for (const snapshot of snapshots)
        bySession.set(str(snapshot, 'session_date_et'), [...(bySession.get(str(snapshot, 'session_date_et')) ?? []), snapshot]);
      for (const [date, session] of bySession) {
        // Whole sessions only: a live one may hold a few snapshots.
        const full = sessionOn(date);
        if (!full || session.length < (full.closeAt - full.openAt) / 300_000) continue;
        const flips = session.map((r) => summary(r, 'gamma_flip_usd'));
        const spots = session.map((r) => num(r, 'spot_usd'));
        const spotRange = Math.max(...spots) - Math.min(...spots);
        const flipRange = Math.max(...flips) - Math.min(...flips);
        // Never flat: the session's open interest alone held the flip to one or two values all day.
        assert.ok(
          new Set(flips).size >= 5,
          `${ticker} ${date}: the flip took ${new Set(flips).size} values in ${session.length} snapshots`,
        );
        ranges.push(flipRange / spotRange);
        correlations.push(correlation(flips, spots));
        // Positioning moves it too: the flip is not spot times a constant.
        const gaps = flips.map((f, i) => f / (spots[i] ?? f) - 1);
        assert.ok(Math.max(...gaps) - Math.min(...gaps) > 0.0005, `${ticker} ${date}: the flip kept one distance to spot all session`);
      }
    }),
    { numRuns: 20 },
  );
  assert.ok(correlations.length >= 20, `${correlations.length} whole sessions read`);
  const sorted = [...ranges].sort((a, b) => a - b);
  const medianRange = sorted[Math.floor(sorted.length / 2)] ?? 0;
  assert.ok(medianRange > 0.25, `the flip's intraday range is typically ${(medianRange * 100).toFixed(0)} % of spot's`);
  const positive = correlations.filter((c) => c > 0).length;
  const mean = correlations.reduce((a, b) => a + b, 0) / correlations.length;
  assert.ok(
    positive >= 0.7 * correlations.length && mean > 0.25,
    `flip against spot: mean correlation ${mean.toFixed(2)}, positive in ${positive} of ${correlations.length} sessions`,
  );
});

test("open-interest changes: near the money by each contract's expected move, and a part of the name's option volume", () => {
  fc.assert(
    fc.property(clock, seed, (now, s) => {
      const changes = rows(generate('market.oi_change', now, { limit: 200 }, undefined, s));
      assert.ok(changes.length > 50);
      const distances: number[] = [];
      for (const row of changes) {
        const underlying = referenceSymbol(str(row, 'underlying'));
        assert.ok(underlying, str(row, 'underlying'));
        const date = str(row, 'session_date_et');
        const session = sessionOn(date);
        const expiry = sessionOn(str(row, 'expiration'));
        assert.ok(session && expiry);
        const spot = closeOn(s, underlying, date);
        const days = Math.max(1, tradingMinutesBetween(session.closeAt, expiry.closeAt) / 390);
        const move = iv30On(s, underlying, date) * Math.sqrt(days / 252);
        // In standard deviations of the move expected by expiry; half a strike step of rounding allowed.
        const distance = Math.max(0, Math.abs(Math.log(num(row, 'strike_usd') / spot)) - (0.5 * strikeGap(spot)) / spot) / move;
        distances.push(distance);
        assert.ok(distance <= 3, `${str(row, 'contract')}: ${distance.toFixed(1)} standard deviations from spot ${spot.toFixed(2)}`);
        const flow = dailyFlow(s, underlying, date);
        assert.ok(
          Math.abs(num(row, 'oi_change')) <= flow.callContracts + flow.putContracts,
          `${str(row, 'contract')}: open interest moved by ${num(row, 'oi_change')} on a day of ${flow.callContracts + flow.putContracts} contracts`,
        );
      }
      distances.sort((a, b) => a - b);
      assert.ok((distances[Math.floor(distances.length / 2)] ?? 9) < 1, 'most changes are within one expected move');
    }),
    { numRuns: 15 },
  );
});

/** The widest listed strike step at a price: rounding a strike moves it at most half of this. */
function strikeGap(price: number): number {
  return price < 25 ? 0.5 : price < 100 ? 1 : price < 250 ? 2.5 : price < 1000 ? 5 : price < 5000 ? 10 : 25;
}

test("open-interest changes scale with each name's option volume: the same small part of it for every name", () => {
  fc.assert(
    fc.property(clock, seed, (now, s) => {
      const changes = rows(generate('market.oi_change', now, { limit: 1000 }, undefined, s));
      const date = str(changes[0], 'session_date_et');
      const shares: string[] = [];
      for (const ticker of new Set(changes.map((r) => str(r, 'underlying')))) {
        const symbol = referenceSymbol(ticker);
        const flow = symbol ? dailyFlow(s, symbol, date) : undefined;
        const traded = flow ? flow.callContracts + flow.putContracts : 0;
        const largest = Math.max(...changes.filter((r) => r['underlying'] === ticker).map((r) => Math.abs(num(r, 'oi_change'))));
        const share = largest / traded;
        // SPY's largest line is not KO's: each is a few tenths of a percent of its own day's contracts.
        if (!(share > 0.0005 && share < 0.05)) shares.push(`${ticker} ${(share * 100).toFixed(3)} %`);
      }
      assert.deepEqual(shares, [], "largest change as a share of the name's contracts traded");
    }),
    { numRuns: 10 },
  );
});

test('fundamentals: the latest quarter is the one reported by that day, with every segment and its fiscal year end', () => {
  const day = fc.integer({ min: Date.parse('2024-06-01'), max: Date.parse('2027-03-31') }).map((t) => toEt(t).date);
  const tickers = STOCKS.filter((sym) => sym.revenueB !== undefined).map((sym) => sym.ticker);
  fc.assert(
    fc.property(day, fc.constantFrom(...tickers), (date, ticker) => {
      const now = Date.parse(`${date}T21:30:00Z`);
      const quarters = rows(generate('fundamentals.fundamental_breakdown', now, { limit: 4 }, ticker));
      const latest = quarters[0];
      assert.ok(latest);
      assert.ok(
        str(latest, 'reported_on') <= date,
        `${ticker} on ${date}: ${str(latest, 'fiscal_period')} reported ${str(latest, 'reported_on')}`,
      );
      // The day before it was reported, it was not the latest yet: nothing stale, nothing early.
      const before = Date.parse(`${previousTradingDay(str(latest, 'reported_on'))}T21:30:00Z`);
      assert.notEqual(
        str(rows(generate('fundamentals.fundamental_breakdown', before, { limit: 1 }, ticker))[0], 'fiscal_period'),
        str(latest, 'fiscal_period'),
      );
      for (const quarter of quarters) {
        const segments = quarter['segments'] as { segment: string; revenue_usd: number }[];
        const listed = referenceSymbol(ticker)?.segments?.length ?? 1;
        assert.equal(segments.length, listed, `${ticker} ${str(quarter, 'fiscal_period')}: every segment`);
        assert.equal(
          segments.reduce((sum, seg) => sum + seg.revenue_usd, 0),
          num(quarter, 'revenue_usd'),
          'segments add up to revenue',
        );
        assert.equal(segments[0]?.segment, quarter['top_segment']);
        const yearEnd = str(quarter, 'fiscal_year_end');
        assert.ok(yearEnd >= str(quarter, 'period_end') && yearEnd <= shiftDate(str(quarter, 'period_end'), 366));
        assert.equal(yearEnd === str(quarter, 'period_end'), quarter['form'] === '10-K', `${ticker}: the 10-K closes the fiscal year`);
        assert.ok(str(quarter, 'filed_on') >= str(quarter, 'reported_on'));
      }
    }),
    { numRuns: 120 },
  );
});

test("fundamentals: known companies' quarters land on their real release days", () => {
  // Days the companies released their quarters ending in the autumn of 2025 (their press releases).
  const released: Record<string, string> = {
    NVDA: '2025-11-19',
    AAPL: '2025-10-30',
    MSFT: '2025-10-29',
    JPM: '2025-10-14',
    KO: '2025-10-21',
  };
  for (const [ticker, day] of Object.entries(released)) {
    const rowsThen = rows(generate('fundamentals.fundamental_breakdown', Date.parse(`${day}T22:00:00Z`), { limit: 1 }, ticker));
    const dayBefore = rows(
      generate('fundamentals.fundamental_breakdown', Date.parse(`${previousTradingDay(day)}T22:00:00Z`), { limit: 1 }, ticker),
    );
    assert.equal(str(rowsThen[0], 'reported_on'), day, `${ticker}: latest quarter ${str(rowsThen[0], 'fiscal_period')}`);
    assert.notEqual(str(dayBefore[0], 'reported_on'), day);
  }
});

test('insiders: every filer of a company has a name and a role of their own', () => {
  const companies = STOCKS.filter((sym) => sym.kind === 'stock').map((sym) => sym.ticker);
  fc.assert(
    fc.property(clock, seed, fc.constantFrom(...companies), (now, s, ticker) => {
      const filers = rows(generate('insider.buy_sells_by_ticker', now, { from: shiftDate(toEt(now).date, -400) }, ticker, s)).flatMap(
        (row) => row['filers'] as { name: string; role: string }[],
      );
      const roleOf = new Map<string, string>();
      for (const f of filers) {
        assert.equal(roleOf.get(f.name) ?? f.role, f.role, `${ticker}: ${f.name} files as one person in one role`);
        roleOf.set(f.name, f.role);
      }
      const names = [...roleOf.keys()];
      assert.equal(new Set(names.map((n) => n.split(' ')[1])).size, names.length, `${ticker}: surnames ${names.join(', ')}`);
      assert.equal(new Set(names.map((n) => n.split(' ')[0])).size, names.length, `${ticker}: first names ${names.join(', ')}`);
      assert.equal(new Set(roleOf.values()).size, names.length, `${ticker}: roles ${[...roleOf.values()].join(', ')}`);
    }),
    { numRuns: 40 },
  );
});
