/**
 * The dealer history summarised per session (`view=sessions`): what a trader asks of three
 * sessions ("how has the flip moved?", "since when are we in negative gamma?") in a few
 * numbers per session instead of 78 rows each.
 *
 * Regime: spot at or above the gamma flip is positive gamma (dealers long gamma, moves
 * dampened); below it, negative gamma. The instant it last changed is searched over every
 * snapshot the history holds, so a regime that began two sessions ago is dated there.
 */
import type { DealerSnapshot } from '../../catalog/index.js';

export type GammaRegime = 'positive_gamma' | 'negative_gamma';

export interface DealerSessionSummary {
  session_date_et: string;
  state: string;
  snapshots: number;
  flip_open_usd: number;
  flip_close_usd: number;
  flip_low_usd: number;
  flip_high_usd: number;
  spot_close_usd: number;
  /** (spot - flip) / flip at the close, in percent: how far spot sits above (+) or below (-) the flip. */
  spot_vs_flip_close_pct: number;
  regime_close: GammaRegime;
  /** The snapshot at which the closing regime began, or "before <oldest snapshot held>". */
  regime_since: string;
  regime_changes_in_session: number;
  king_strike_close_usd: number;
  call_wall_close_usd: number;
  put_wall_close_usd: number;
  total_gex_usd_m_low: number;
  total_gex_usd_m_high: number;
  total_gex_usd_m_close: number;
}

export function regimeOf(snapshot: DealerSnapshot): GammaRegime {
  return snapshot.spot_usd >= snapshot.summary.gamma_flip_usd ? 'positive_gamma' : 'negative_gamma';
}

const millions = (usd: number): number => Math.round(usd / 1e6);
const cents = (usd: number): number => Math.round(usd * 100) / 100;

/** Snapshots newest first (as the history pages them) → one summary per session, newest first. */
export function summariseSessions(newestFirst: readonly DealerSnapshot[]): DealerSessionSummary[] {
  const oldestFirst = [...newestFirst].sort((a, b) => Date.parse(a.snapshot_at) - Date.parse(b.snapshot_at));
  const oldest = oldestFirst[0];
  if (!oldest) return [];
  // When the regime in force at each snapshot began, walking forward through the whole history.
  const since = new Map<DealerSnapshot, string>();
  let regime = regimeOf(oldest);
  let began = `before ${oldest.snapshot_at}`;
  for (const snapshot of oldestFirst) {
    const now = regimeOf(snapshot);
    if (now !== regime) {
      regime = now;
      began = snapshot.snapshot_at;
    }
    since.set(snapshot, began);
  }
  const bySession = new Map<string, DealerSnapshot[]>();
  for (const snapshot of oldestFirst) {
    const list = bySession.get(snapshot.session_date_et) ?? [];
    list.push(snapshot);
    bySession.set(snapshot.session_date_et, list);
  }
  const summaries: DealerSessionSummary[] = [];
  for (const [session, list] of bySession) {
    const open = list[0];
    const close = list[list.length - 1];
    if (!open || !close) continue;
    const flips = list.map((s) => s.summary.gamma_flip_usd);
    const totals = list.map((s) => s.summary.total_gex_usd);
    let changes = 0;
    for (let i = 1; i < list.length; i += 1) {
      const before = list[i - 1];
      const after = list[i];
      if (before && after && regimeOf(before) !== regimeOf(after)) changes += 1;
    }
    const flip = close.summary.gamma_flip_usd;
    summaries.push({
      session_date_et: session,
      state: close.state,
      snapshots: list.length,
      flip_open_usd: open.summary.gamma_flip_usd,
      flip_close_usd: flip,
      flip_low_usd: Math.min(...flips),
      flip_high_usd: Math.max(...flips),
      spot_close_usd: close.spot_usd,
      spot_vs_flip_close_pct: flip !== 0 ? cents(((close.spot_usd - flip) / flip) * 100) : 0,
      regime_close: regimeOf(close),
      regime_since: since.get(close) ?? `before ${oldest.snapshot_at}`,
      regime_changes_in_session: changes,
      king_strike_close_usd: close.summary.king_strike_usd,
      call_wall_close_usd: close.summary.call_wall_strike_usd,
      put_wall_close_usd: close.summary.put_wall_strike_usd,
      total_gex_usd_m_low: millions(Math.min(...totals)),
      total_gex_usd_m_high: millions(Math.max(...totals)),
      total_gex_usd_m_close: millions(close.summary.total_gex_usd),
    });
  }
  return summaries.reverse();
}
