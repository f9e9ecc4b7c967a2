/**
 * Dealer gamma exposure computed from a synthetic option chain, as the desks that publish
 * it do: open interest by strike and expiry (fixed for the session, as OI is), implied
 * volatility with a downside skew, Black-Scholes gamma, and the usual dealer convention
 * (dealers long the calls customers sold, short the puts customers bought):
 *
 *   net GEX(K) = Σ_expiries (Γ_call·OI_call − Γ_put·OI_put) · 100 · S² · 1%
 *
 * in dollars per 1 % move. Spot follows the session's intraday path, so the levels drift
 * with it instead of jumping; the gamma flip is where the total, re-priced across spot,
 * crosses zero, so spot above the flip always comes with a positive total.
 */
import type { DealerSnapshot } from '../catalog/index.js';
import {
  etIso,
  isLive,
  nextTradingDay,
  previousTradingDay,
  recentSessions,
  sessionOn,
  shiftDate,
  weeklyExpiry,
  type Session,
} from '../catalog/market-calendar.js';
import { iv30On, previousClose, priceAt } from './market.js';
import { gamma, skewedVol, strikeStep } from './options-math.js';
import { tradingYearsBetween } from './trading-time.js';
import { gaussian, round, seededRandom } from './random.js';
import { marketFamily, type ReferenceSymbol } from './reference.js';

export const SNAPSHOT_MINUTES = 5;
export const STRIKES_PER_SNAPSHOT = 25;

// The catalog documents these sets as enums; the simulator emits exactly them.
import { NODE_TYPES, SNAPSHOT_STATES } from '../catalog/index.js';
export { NODE_TYPES, SNAPSHOT_STATES };
export type NodeType = (typeof NODE_TYPES)[number];
export type SnapshotState = (typeof SNAPSHOT_STATES)[number];

interface Slot {
  readonly session: Session;
  readonly at: number;
}

/** Every snapshot instant of the last three sessions that has happened by `now`, newest first. */
export function snapshotSlots(now: number): Slot[] {
  const result: Slot[] = [];
  for (const session of recentSessions(now, 3)) {
    const last = Math.min(session.closeAt, now);
    const step = SNAPSHOT_MINUTES * 60_000;
    for (let at = session.openAt + Math.floor((last - session.openAt) / step) * step; at > session.openAt; at -= step)
      result.push({ session, at });
  }
  return result;
}

interface ChainLine {
  readonly strike: number;
  /** Open interest (contracts) per expiry: [expiry close instant, call OI, put OI]. */
  readonly oi: readonly (readonly [number, number, number])[];
}

interface Chain {
  readonly lines: readonly ChainLine[];
  readonly atmVol: number;
  /** Open interest per strike of an ordinary line at the peak, for sizing the session's own flow. */
  readonly oiScale: number;
  /** Close of the nearest expiry: where the session's own customer flow goes. */
  readonly nearestCloseAt: number;
}

const chains = new Map<string, Chain>();

/**
 * Open interest per strike at the peak of an index chain. Dollar gamma grows with price
 * (GEX ∝ OI·S/σ), so one figure for every index made NDX's book (S ≈ 24,500) four times
 * SPX's: SPX's dwarfs NDX's and RUT's, and NDX sits near QQQ's, as desks report them.
 */
const INDEX_OPEN_INTEREST: Readonly<Record<string, number>> = { SPX: 4_000, NDX: 200, RUT: 800 };

/**
 * The step of the strikes shown: the listed grid, or a multiple of it wide enough for the
 * snapshot's strikes to span three daily moves either side of the reference. With the
 * listed step alone NDX's 25 strikes covered ±1.2 %, one daily move: a 2 % gap left spot
 * below every strike, and the walls on the wrong side of it.
 */
function shownStep(listed: number, reference: number, atmVol: number): number {
  const halfSpan = (3 * atmVol * reference) / Math.sqrt(252);
  const needed = halfSpan / Math.floor(STRIKES_PER_SNAPSHOT / 2);
  for (const multiple of [1, 2, 4, 5, 10, 20, 40, 50, 100]) if (listed * multiple >= needed) return listed * multiple;
  return listed * 100;
}

/** The session's chain: strikes around the previous close, OI heavier on round strikes, calls above, puts below. */
function chainFor(seed: number, symbol: ReferenceSymbol, session: Session): Chain {
  const key = `${seed}|${symbol.ticker}|${session.date}`;
  const cached = chains.get(key);
  if (cached) return cached;
  const reference = previousClose(seed, symbol, session.date);
  // Yesterday's close: the chain's volatility is known before the session opens.
  const atmVol = iv30On(seed, symbol, previousTradingDay(session.date));
  const listed = strikeStep(reference, symbol.dailyExpiries);
  const step = shownStep(listed, reference, atmVol);
  const center = Math.round(reference / step) * step;
  // Centred on the reference, but never at or below zero (AMC, BYND trade in single dollars).
  const lowest = Math.max(step, center - Math.floor(STRIKES_PER_SNAPSHOT / 2) * step);
  const nearest = symbol.dailyExpiries ? session.date : weeklyExpiry(session.date);
  const following = weeklyExpiry(nextTradingDay(nearest));
  const monthly = weeklyExpiry(shiftDate(following, 14));
  // Open interest piles up in the later expiries; the 0DTE one carries the sharpest gamma.
  const expiries = [
    [sessionOn(nearest)?.closeAt ?? session.closeAt, 1],
    [sessionOn(following)?.closeAt ?? session.closeAt, 1.3],
    [sessionOn(monthly)?.closeAt ?? session.closeAt, 2.2],
  ] as const;
  const oiScale = symbol.kind === 'index' ? (INDEX_OPEN_INTEREST[symbol.ticker] ?? 4_000) : Math.max(300, symbol.advM * 200);
  const width = reference * Math.max(0.02, atmVol * Math.sqrt(5 / 252) * 2);
  const random = seededRandom(seed, 'chain', symbol.ticker, session.date);
  // Customers overwrite calls above the money and buy protective puts below it: call OI piles up
  // above the reference, put OI below, each around its own centre out of the money (protection
  // further out than overwriting, so dealers are long gamma at the reference on most days, as
  // desks publishing SPX report), with only a thin in-the-money residue. The session's call/put
  // balance (bounded: a chain with no put side left is not a liquid chain) moves the flip a little
  // away from the reference, so the sign of total GEX holds for a while; it never erases the put
  // side, so the re-priced total always turns negative somewhere below the reference and the flip
  // is a real zero crossing.
  // An index and its ETF are one market to the customers positioning in them: one call/put balance.
  const positioning = seededRandom(seed, 'positioning', marketFamily(symbol.ticker), session.date);
  const callBias = Math.min(1.5, Math.max(0.75, 1.1 * Math.exp(0.15 * gaussian(positioning))));
  const callOffset = 0.3 * width;
  const putOffset = 0.6 * width;
  const lines = Array.from({ length: STRIKES_PER_SNAPSHOT }, (_, i) => {
    const strike = round(lowest + i * step, 2);
    const units = Math.round(strike / listed);
    const roundness = units % 10 === 0 ? 2.4 : units % 5 === 0 ? 1.7 : 1;
    const callNear = Math.exp(-(((strike - reference - callOffset) / width) ** 2));
    const putNear = Math.exp(-(((strike - reference + putOffset) / width) ** 2));
    const oi = expiries.map(([closeAt, weight]) => {
      const noise = (): number => Math.exp(0.3 * gaussian(random));
      const calls = oiScale * weight * roundness * callNear * callBias * (strike >= reference ? 1 : 0.25) * noise();
      const puts = oiScale * weight * roundness * putNear * (strike <= reference ? 1.1 : 0.25) * noise();
      return [closeAt, Math.round(calls), Math.round(puts)] as const;
    });
    return { strike, oi };
  });
  const chain = { lines, atmVol, oiScale, nearestCloseAt: expiries[0][0] };
  if (chains.size > 1000) chains.clear();
  chains.set(key, chain);
  return chain;
}

/**
 * Gamma is priced with at least one trading day to expiry. In its last hours an expiring
 * contract's gamma spikes on the strikes next to spot (a pin no desk hedges at that size),
 * which pulled both walls to the strikes either side of spot at every close.
 */
const MIN_GAMMA_MINUTES = 390;

/**
 * Net dealer GEX per strike, in dollars per 1 % move, with the chain re-priced at `spot`;
 * `flow` adds, per strike, the session's own positions in the nearest expiry (dealer
 * convention: positive where dealers are long gamma).
 */
function netGexByStrike(chain: Chain, spot: number, at: number, flow?: Float64Array): number[] {
  const years = yearsToExpiries(chain, at);
  return chain.lines.map((line, i) => {
    const vol = skewedVol(chain.atmVol, spot, line.strike);
    let net = 0;
    for (const [closeAt, calls, puts] of line.oi) {
      const t = years.get(closeAt);
      if (t === undefined) continue;
      net += gamma(spot, line.strike, vol, t) * (calls - puts) * 100 * spot * spot * 0.01;
    }
    const own = flow?.[i] ?? 0;
    const t = years.get(chain.nearestCloseAt);
    if (own !== 0 && t !== undefined) net += gamma(spot, line.strike, vol, t) * own * 100 * spot * spot * 0.01;
    return net;
  });
}

/**
 * Time to each expiry still open at `at`, in trading time as the quotes count it
 * (src/simulator/trading-time.ts): worked out once per snapshot, not per strike and probe
 * of the flip's search, as the calendar is read in ET.
 */
function yearsToExpiries(chain: Chain, at: number): Map<number, number> {
  const key = `${at}`;
  let known = expiryYears.get(chain);
  if (known?.at !== key) {
    const years = new Map<number, number>();
    for (const [closeAt] of chain.lines[0]?.oi ?? [])
      if (closeAt >= at) years.set(closeAt, tradingYearsBetween(at, closeAt, MIN_GAMMA_MINUTES));
    if (chain.nearestCloseAt >= at) years.set(chain.nearestCloseAt, tradingYearsBetween(at, chain.nearestCloseAt, MIN_GAMMA_MINUTES));
    known = { at: key, years };
    expiryYears.set(chain, known);
  }
  return known.years;
}
const expiryYears = new WeakMap<Chain, { at: string; years: Map<number, number> }>();

/** Cumulative session flow per snapshot slot: index j holds every strike's net after the j-th 5-minute slot. */
const flows = new Map<string, Float64Array[]>();

/**
 * The day's same-day volume as a multiple of the chain's peak open interest per strike and
 * expiry: 0DTE volume runs at several times the whole chain's open interest, as on SPX and SPY.
 */
const SESSION_FLOW_OF_OI = 200;
/** Same-day positions are mostly closed within the hour (a mean life of 60 minutes): the flow near spot now outweighs the morning's. */
const FLOW_LIFETIME_MINUTES = 60;

/**
 * The positions customers open in the nearest expiry as the session trades, so dealer gamma
 * and the flip move with spot and with positioning during the day instead of holding the
 * morning's open interest all session. Each 5-minute slot trades a U-shaped share of the day's
 * flow around where spot is then: customers sell calls half a daily move above it and buy puts
 * half a move below it (dealers long gamma above spot, short below), so the flip is pulled
 * along with spot; the balance of the two sides (the session's lean, drifting through the day)
 * moves it on its own, up when puts are bought harder. Positions fade as they are closed.
 * An index and its ETF share the lean and the path, as they share customers.
 */
function sessionFlow(seed: number, symbol: ReferenceSymbol, session: Session, chain: Chain): Float64Array[] {
  const key = `${seed}|${symbol.ticker}|${session.date}`;
  const known = flows.get(key);
  if (known) return known;
  const step = SNAPSHOT_MINUTES * 60_000;
  const slots = Math.round((session.closeAt - session.openAt) / step);
  const random = seededRandom(seed, 'session-flow', marketFamily(symbol.ticker), session.date);
  const lean = 0.2 * gaussian(random);
  const dailyMove = chain.atmVol / Math.sqrt(252);
  const shapes = Array.from({ length: slots }, (_, j) => 1 + 1.6 * ((j + 0.5) / slots - 0.5) ** 2 * 4);
  const shapeSum = shapes.reduce((a, b) => a + b, 0);
  const total = chain.oiScale * SESSION_FLOW_OF_OI;
  const cumulative: Float64Array[] = [];
  let running = new Float64Array(chain.lines.length);
  let drift = 0;
  for (let j = 0; j < slots; j += 1) {
    drift += 0.015 * gaussian(random);
    const at = session.openAt + (j + 1) * step;
    const spot = priceAt(seed, symbol, at, session);
    const width = Math.max(spot * dailyMove * 0.5, 1e-6);
    const offset = spot * dailyMove * 0.5;
    const near = (strike: number, centre: number): number => Math.exp(-(((strike - centre) / width) ** 2));
    const calls = chain.lines.map((line) => near(line.strike, spot + offset));
    const puts = chain.lines.map((line) => near(line.strike, spot - offset));
    const callSum = calls.reduce((a, b) => a + b, 0) || 1;
    const putSum = puts.reduce((a, b) => a + b, 0) || 1;
    const traded = (total * (shapes[j] ?? 1)) / shapeSum;
    const balance = Math.max(-0.9, Math.min(0.9, lean + drift));
    const decay = Math.exp(-SNAPSHOT_MINUTES / FLOW_LIFETIME_MINUTES);
    const next = running.map((v) => v * decay);
    chain.lines.forEach((_, i) => {
      next[i] = (next[i] ?? 0) + traded * (((1 + balance) * (calls[i] ?? 0)) / callSum - ((1 - balance) * (puts[i] ?? 0)) / putSum);
    });
    cumulative.push(next);
    running = next;
  }
  if (flows.size > 500) flows.clear();
  flows.set(key, cumulative);
  return cumulative;
}

/** The session's own flow at a snapshot instant (none before the first slot closes). */
function flowAt(seed: number, symbol: ReferenceSymbol, session: Session, chain: Chain, at: number): Float64Array | undefined {
  const slot = Math.floor((Math.min(at, session.closeAt) - session.openAt) / (SNAPSHOT_MINUTES * 60_000)) - 1;
  return slot < 0 ? undefined : sessionFlow(seed, symbol, session, chain)[slot];
}

function totalGex(chain: Chain, spot: number, at: number, flow?: Float64Array): number {
  return netGexByStrike(chain, spot, at, flow).reduce((sum, g) => sum + g, 0);
}

/** How far from spot the flip is looked for: well past any strike the chain lists. */
const FLIP_SEARCH_RANGE = 0.5;

/**
 * The gamma flip: scanning away from spot (down when the total is positive, up when it is
 * negative) to the first strict sign change of the re-priced total, refined by bisection.
 * A total that merely decays towards zero far from the strikes is not a crossing. Undefined
 * when there is none within FLIP_SEARCH_RANGE: the caller must not pass a bound off as a level.
 */
function gammaFlip(chain: Chain, spot: number, at: number, totalAtSpot: number, flow?: Float64Array): number | undefined {
  const positive = totalAtSpot >= 0;
  const direction = positive ? -1 : 1;
  const crossed = (total: number): boolean => (positive ? total < 0 : total > 0);
  let inside = spot;
  for (let i = 1; i * 0.0025 <= FLIP_SEARCH_RANGE; i += 1) {
    const probe = spot * (1 + direction * 0.0025 * i);
    if (crossed(totalGex(chain, probe, at, flow))) {
      let outside = probe;
      for (let k = 0; k < 20; k += 1) {
        const mid = (inside + outside) / 2;
        if (crossed(totalGex(chain, mid, at, flow))) outside = mid;
        else inside = mid;
      }
      return (inside + outside) / 2;
    }
    inside = probe;
  }
  return undefined;
}

export function buildSnapshot(seed: number, symbol: ReferenceSymbol, slot: Slot, now: number, isNewest: boolean): DealerSnapshot {
  const chain = chainFor(seed, symbol, slot.session);
  const spot = round(priceAt(seed, symbol, slot.at, slot.session), 2);
  const flow = flowAt(seed, symbol, slot.session, chain, slot.at);
  const raw = netGexByStrike(chain, spot, slot.at, flow).map((gex, i) => ({ strike: chain.lines[i]?.strike ?? 0, gex: Math.round(gex) }));
  const total = raw.reduce((sum, s) => sum + s.gex, 0);
  // The chain always has a put side below the reference and a call side above it, so the total
  // crosses zero; were it ever not to, the outermost strike on the searched side is the honest
  // answer the schema's number allows (the flip lies beyond everything measured), never the bound.
  const edge = total >= 0 ? (chain.lines[0]?.strike ?? spot) : (chain.lines[chain.lines.length - 1]?.strike ?? spot);
  let flip = round(gammaFlip(chain, spot, slot.at, total, flow) ?? edge, 2);
  // Rounding must not put spot on the wrong side of the flip.
  if (total >= 0 && flip >= spot) flip = round(spot - 0.01, 2);
  if (total < 0 && flip <= spot) flip = round(spot + 0.01, 2);

  const byStrength = [...raw].sort((a, b) => Math.abs(b.gex) - Math.abs(a.gex) || a.strike - b.strike);
  const maxAbs = Math.abs(byStrength[0]?.gex ?? 1) || 1;
  const king = byStrength[0]?.strike ?? spot;
  const positives = raw.filter((s) => s.gex > 0).sort((a, b) => b.gex - a.gex);
  const negatives = raw.filter((s) => s.gex < 0).sort((a, b) => a.gex - b.gex);
  const callWall = positives.find((s) => s.strike >= spot)?.strike ?? positives[0]?.strike ?? king;
  const putWall = negatives.find((s) => s.strike <= spot)?.strike ?? negatives[0]?.strike ?? king;

  const strikes = raw.map((s) => {
    let nodeType: NodeType = s.gex >= 0 ? 'positive' : 'negative';
    if (s.strike === putWall) nodeType = 'put_wall';
    if (s.strike === callWall) nodeType = 'call_wall';
    if (s.strike === king) nodeType = 'king';
    return {
      strike_usd: s.strike,
      net_gex_usd: s.gex,
      node_type: nodeType,
      rank: byStrength.indexOf(s) + 1,
      relative_strength: round(Math.abs(s.gex) / maxAbs, 4),
    };
  });
  const state: SnapshotState = isNewest && isLive(slot.session, now) ? 'live' : 'closed';
  return {
    ticker: symbol.ticker,
    snapshot_at: etIso(slot.at),
    session_date_et: slot.session.date,
    state,
    spot_usd: spot,
    strikes,
    summary: {
      total_gex_usd: total,
      king_strike_usd: king,
      gamma_flip_usd: flip,
      call_wall_strike_usd: callWall,
      put_wall_strike_usd: putWall,
      major_positive_strike_usd: positives[0]?.strike ?? king,
      major_negative_strike_usd: negatives[0]?.strike ?? king,
    },
  };
}

interface CursorState {
  v: 2;
  /** Ticker the cursor belongs to. */
  t: string;
  /** The page continues with snapshots strictly before this instant (epoch ms). */
  b: number;
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

/**
 * The instant a cursor continues before, or undefined when it is not one of ours for this
 * ticker. Keyed by instant, not offset, so a new snapshot arriving between two pages
 * neither repeats nor skips one.
 */
export function decodeCursor(cursor: string, ticker: string): number | undefined {
  try {
    const state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorState>;
    if (state.v !== 2 || state.t !== ticker || typeof state.b !== 'number' || !Number.isInteger(state.b) || state.b <= 0) return undefined;
    return state.b;
  } catch {
    return undefined;
  }
}

export interface DealerPage {
  data: DealerSnapshot[];
  nextCursor: string | null;
  /** Instant of the newest snapshot that exists (for freshness). */
  newestAt: number;
}

export function dealerHistoryPage(
  seed: number,
  now: number,
  symbol: ReferenceSymbol,
  before: number | undefined,
  limit: number,
): DealerPage {
  const all = snapshotSlots(now);
  const newest = all[0];
  const remaining = before === undefined ? all : all.filter((slot) => slot.at < before);
  const page = remaining.slice(0, limit);
  const data = page.map((slot) => buildSnapshot(seed, symbol, slot, now, slot === newest));
  const last = page[page.length - 1];
  const nextCursor = last && remaining.length > limit ? encodeCursor({ v: 2, t: symbol.ticker, b: last.at }) : null;
  return { data, nextCursor, newestAt: newest?.at ?? now };
}
