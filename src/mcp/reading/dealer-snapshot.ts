/**
 * One dealer snapshot as the upstream sent it, read by role: the spec fixes the history's
 * fields, but an upstream may send numbers as text, flatten the summary into the row, or
 * spell a field otherwise (`spot`, `gamma_flip`, `strike`). Values the spec leaves open pass
 * through as sent: `state` (`CLOSED` stays `CLOSED`, with `state_normalized: "closed"` beside
 * it where the value is a known alias) and `node_type` (an unknown `KING` is kept; only a
 * strike that has none gets the sign of its net GEX). A snapshot missing a level the answer
 * needs is not read: the fields missing are named, never answered blank.
 */
import { SNAPSHOT_STATES, type DealerSnapshot, type ReadDealerSnapshot } from '../../catalog/index.js';
import { keyFor, numberByRole, textByRole, tickerOf } from './field-roles.js';

type Row = Record<string, unknown>;

const isRow = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Aliases by role, the spec's own name first. */
const SNAPSHOT_AT = ['snapshot_at', 'snapshot_time', 'as_of', 'timestamp', 'time', 'at'];
const SESSION = ['session_date_et', 'session_date', 'trading_date', 'session', 'date'];
const STATE = ['state', 'session_state', 'snapshot_state', 'status'];
const SPOT = ['spot_usd', 'spot', 'spot_price', 'underlying_price', 'price'];
const SUMMARY = ['summary', 'levels_summary', 'aggregate'];
const STRIKES = ['strikes', 'by_strike', 'strike_levels', 'levels'];
const LEVELS: Record<keyof DealerSnapshot['summary'], readonly string[]> = {
  total_gex_usd: ['total_gex_usd', 'total_gex', 'net_gex_usd', 'net_gex', 'total_gamma_exposure_usd'],
  king_strike_usd: ['king_strike_usd', 'king_strike', 'king'],
  gamma_flip_usd: ['gamma_flip_usd', 'gamma_flip', 'flip', 'zero_gamma', 'gamma_flip_strike'],
  call_wall_strike_usd: ['call_wall_strike_usd', 'call_wall_usd', 'call_wall'],
  put_wall_strike_usd: ['put_wall_strike_usd', 'put_wall_usd', 'put_wall'],
  major_positive_strike_usd: ['major_positive_strike_usd', 'major_positive_strike', 'major_positive'],
  major_negative_strike_usd: ['major_negative_strike_usd', 'major_negative_strike', 'major_negative'],
};
const STRIKE = ['strike_usd', 'strike', 'strike_price'];
const NET_GEX = ['net_gex_usd', 'net_gex', 'gex_usd', 'gex'];
const NODE_TYPE = ['node_type', 'node', 'type'];
const RANK = ['rank'];
const STRENGTH = ['relative_strength', 'strength'];

/** Known spellings of the states this server names (`final` is a closed session's last word). */
const STATE_ALIASES: Record<string, (typeof SNAPSHOT_STATES)[number]> = {
  live: 'live',
  open: 'live',
  closed: 'closed',
  close: 'closed',
  final: 'closed',
  stale: 'stale',
  delayed: 'stale',
};

const ET_DATE = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' });

export interface ReadSnapshot {
  snapshot: ReadDealerSnapshot;
}

export interface UnreadSnapshot {
  /** The fields the snapshot lacks (or holds as neither a number nor numeric text), by their spec names. */
  missing: string[];
}

/** The snapshot a row holds, or the fields it lacks; undefined when it is no snapshot (no instant). */
export function readSnapshot(row: unknown): ReadSnapshot | UnreadSnapshot | undefined {
  if (!isRow(row)) return undefined;
  const at = textByRole(row, SNAPSHOT_AT);
  const ms = at === undefined ? NaN : Date.parse(at);
  if (at === undefined || Number.isNaN(ms)) return undefined;
  const summaryKey = keyFor(row, SUMMARY);
  const summarySource = summaryKey !== undefined && isRow(row[summaryKey]) ? row[summaryKey] : row;
  const missing: string[] = [];
  const spot = numberByRole(row, SPOT);
  if (spot === undefined) missing.push('spot_usd');
  // Fields the API adds to the summary pass on (as a strike's do); the spec's are read as numbers.
  const summary: Record<string, unknown> = summarySource === row ? {} : { ...summarySource };
  for (const [name, aliases] of Object.entries(LEVELS) as [keyof DealerSnapshot['summary'], readonly string[]][]) {
    const value = numberByRole(summarySource, aliases) ?? numberByRole(row, aliases);
    if (value === undefined) missing.push(`summary.${name}`);
    else summary[name] = value;
  }
  if (missing.length > 0 || spot === undefined) return { missing };
  const state = textByRole(row, STATE) ?? '';
  const known = STATE_ALIASES[state.toLowerCase()];
  const snapshot: ReadDealerSnapshot = {
    ticker: tickerOf(row) ?? '',
    snapshot_at: at,
    session_date_et: textByRole(row, SESSION) ?? ET_DATE.format(new Date(ms)),
    state,
    // A known alias beside the value as sent, never instead of it.
    ...(known !== undefined && known !== state ? { state_normalized: known } : {}),
    spot_usd: spot,
    summary: summary as DealerSnapshot['summary'] & Record<string, unknown>,
    strikes: strikesOf(row),
  };
  return { snapshot };
}

/** The strikes a snapshot lists, by role; one without a strike or a net GEX is not a strike. */
function strikesOf(row: Row): DealerSnapshot['strikes'] {
  const key = keyFor(row, STRIKES);
  const listed = key !== undefined && Array.isArray(row[key]) ? (row[key] as unknown[]) : [];
  const read = listed.flatMap((item) => {
    if (!isRow(item)) return [];
    const strike = numberByRole(item, STRIKE);
    const gex = numberByRole(item, NET_GEX);
    return strike === undefined || gex === undefined ? [] : [{ item, strike, gex }];
  });
  const largest = Math.max(0, ...read.map((s) => Math.abs(s.gex)));
  const byMagnitude = [...read].sort((a, b) => Math.abs(b.gex) - Math.abs(a.gex));
  return read.map(({ item, strike, gex }) => ({
    ...item,
    strike_usd: strike,
    net_gex_usd: gex,
    // As sent, whatever its value; the sign of the strike's GEX only where it sends none.
    node_type: textByRole(item, NODE_TYPE) ?? (gex >= 0 ? 'positive' : 'negative'),
    rank: numberByRole(item, RANK) ?? byMagnitude.findIndex((s) => s.item === item) + 1,
    relative_strength: numberByRole(item, STRENGTH) ?? (largest > 0 ? Math.round((Math.abs(gex) / largest) * 1000) / 1000 : 0),
  }));
}
