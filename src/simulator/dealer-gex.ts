/**
 * Dealer gamma-exposure history: 5-minute snapshots over three exchange sessions,
 * newest first, paged with an opaque cursor. Field for field as the spec draws it.
 */
import type { DealerSnapshot } from '../catalog/index.js';
import { recentSessions, round, seededRandom, SESSION_CLOSE_MINUTES, SESSION_OPEN_MINUTES, toEt, type UniverseEntry } from './market.js';

const SNAPSHOT_MINUTES = 5;
const STRIKES_PER_SNAPSHOT = 25;

interface SnapshotSlot {
  session: string;
  minutes: number;
}

/** Every snapshot slot of the last three sessions that has happened by `now`, newest first. */
function slots(now: number): SnapshotSlot[] {
  const today = toEt(now);
  const result: SnapshotSlot[] = [];
  for (const session of recentSessions(now, 3)) {
    const last = session === today.date ? Math.min(SESSION_CLOSE_MINUTES, today.minutes) : SESSION_CLOSE_MINUTES;
    for (let minutes = last - (last % SNAPSHOT_MINUTES); minutes > SESSION_OPEN_MINUTES; minutes -= SNAPSHOT_MINUTES) {
      result.push({ session, minutes });
    }
  }
  return result;
}

function strikeStep(spot: number): number {
  if (spot < 25) return 0.5;
  if (spot < 100) return 1;
  if (spot < 300) return 2.5;
  if (spot < 1500) return 5;
  return 25;
}

function isoAt(session: string, minutes: number): string {
  const noon = Date.parse(`${session}T17:00:00Z`);
  const offset = toEt(noon).offset;
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${session}T${hh}:${mm}:00${offset}`;
}

export function buildSnapshot(seed: number, entry: UniverseEntry, slot: SnapshotSlot, isLatest: boolean): DealerSnapshot {
  const sessionRandom = seededRandom(seed, 'gex', entry.ticker, slot.session);
  const drift = (sessionRandom() - 0.5) * 0.02;
  const random = seededRandom(seed, 'gex', entry.ticker, slot.session, slot.minutes);
  const progress = (slot.minutes - SESSION_OPEN_MINUTES) / (SESSION_CLOSE_MINUTES - SESSION_OPEN_MINUTES);
  const spot = round(entry.spot * (1 + drift * progress + (random() - 0.5) * 0.002));
  const step = strikeStep(spot);
  const center = Math.round(spot / step) * step;
  const flip = spot * (1 - 0.006 + sessionRandom() * 0.008);
  const width = step * 4;
  const scale = entry.spot * 2_000_000;

  const raw = Array.from({ length: STRIKES_PER_SNAPSHOT }, (_, i) => {
    const strike = round(center + (i - Math.floor(STRIKES_PER_SNAPSHOT / 2)) * step);
    // Negative below the flip, positive above, concentrated within a few strikes of spot.
    const shape = Math.tanh((strike - flip) / (2 * step)) * Math.exp(-(((strike - spot) / width) ** 2));
    return { strike, gex: Math.round(scale * (shape + (random() - 0.5) * 0.15)) };
  });
  const byStrength = [...raw].sort((a, b) => Math.abs(b.gex) - Math.abs(a.gex));
  const maxAbs = Math.abs(byStrength[0]?.gex ?? 1) || 1;
  const king = byStrength[0]?.strike ?? center;
  const positives = raw.filter((s) => s.gex > 0).sort((a, b) => b.gex - a.gex);
  const negatives = raw.filter((s) => s.gex < 0).sort((a, b) => a.gex - b.gex);
  const callWall = positives.find((s) => s.strike >= spot)?.strike ?? positives[0]?.strike ?? center;
  const putWall = negatives.find((s) => s.strike <= spot)?.strike ?? negatives[0]?.strike ?? center;

  const strikes = raw.map((s) => {
    let nodeType = s.gex >= 0 ? 'positive' : 'negative';
    if (s.strike === callWall) nodeType = 'call_wall';
    if (s.strike === putWall) nodeType = 'put_wall';
    if (s.strike === king) nodeType = 'king';
    return {
      strike_usd: s.strike,
      net_gex_usd: s.gex,
      node_type: nodeType,
      rank: byStrength.indexOf(s) + 1,
      relative_strength: round(Math.abs(s.gex) / maxAbs, 4),
    };
  });

  return {
    ticker: entry.ticker,
    snapshot_at: isoAt(slot.session, slot.minutes),
    session_date_et: slot.session,
    state: isLatest && slot.minutes < SESSION_CLOSE_MINUTES ? 'live' : 'closed',
    spot_usd: spot,
    strikes,
    summary: {
      total_gex_usd: raw.reduce((sum, s) => sum + s.gex, 0),
      king_strike_usd: king,
      gamma_flip_usd: round(flip),
      call_wall_strike_usd: callWall,
      put_wall_strike_usd: putWall,
      major_positive_strike_usd: positives[0]?.strike ?? center,
      major_negative_strike_usd: negatives[0]?.strike ?? center,
    },
  };
}

interface CursorState {
  v: 1;
  t: string;
  o: number;
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

/** The offset a cursor points at, or undefined when it is not one of ours for this ticker. */
export function decodeCursor(cursor: string, ticker: string): number | undefined {
  try {
    const state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorState>;
    if (state.v !== 1 || state.t !== ticker || !Number.isInteger(state.o) || (state.o ?? -1) < 0) return undefined;
    return state.o;
  } catch {
    return undefined;
  }
}

export interface DealerPage {
  data: DealerSnapshot[];
  nextCursor: string | null;
  freshnessSeconds: number;
}

export function dealerHistoryPage(seed: number, now: number, entry: UniverseEntry, offset: number, limit: number): DealerPage {
  const all = slots(now);
  const page = all.slice(offset, offset + limit).map((slot, i) => buildSnapshot(seed, entry, slot, offset + i === 0));
  const next = offset + limit < all.length ? encodeCursor({ v: 1, t: entry.ticker, o: offset + limit }) : null;
  const newest = all[0];
  const freshness = newest ? Math.max(0, Math.round((now - Date.parse(isoAt(newest.session, newest.minutes))) / 1000)) : 0;
  return { data: page, nextCursor: next, freshnessSeconds: freshness };
}
