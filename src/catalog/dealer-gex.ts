/**
 * The dealer gamma-exposure history: the upstream response field for field as the spec
 * gives it, with units and the value sets this server uses, and the shapes the tool
 * answers with (the newest snapshot, compact levels, or full snapshots).
 *
 * GEX unit: dollar gamma, the USD value of shares dealers must buy (positive) or sell
 * (negative) for a 1% move in spot.
 */
import * as z from 'zod';

/**
 * Values of `node_type` this server knows: the king strike, the two walls, else the sign of the
 * strike's net GEX. The spec leaves the set open: any other value passes through as sent.
 */
export const NODE_TYPES = ['king', 'call_wall', 'put_wall', 'positive', 'negative'] as const;
/**
 * Values of `state` this server knows: live (session under way), closed (final for its
 * session), stale (not refreshed on time). The spec leaves the set open: any other value
 * passes through as sent, with `state_normalized` beside it where it is a known alias.
 */
export const SNAPSHOT_STATES = ['live', 'closed', 'stale'] as const;

export const dealerStrike = z.object({
  strike_usd: z.number(),
  net_gex_usd: z.number().describe('Net dealer GEX at this strike, USD per 1% move; >0 dealers long gamma.'),
  // An open set (NODE_TYPES and whatever else the API sends): no enum, and no words in tools/list.
  node_type: z.string(),
  rank: z.number().describe('1 = largest |net GEX|.'),
  relative_strength: z.number().describe('0 to 1 of the largest |net GEX|.'),
});

export const dealerSummary = z.object({
  total_gex_usd: z.number().describe('Sum of net GEX, USD per 1% move.'),
  // King, flip and walls are explained in the tool's description.
  king_strike_usd: z.number(),
  gamma_flip_usd: z.number(),
  call_wall_strike_usd: z.number(),
  put_wall_strike_usd: z.number(),
  major_positive_strike_usd: z.number(),
  major_negative_strike_usd: z.number(),
});

export const dealerSnapshot = z.object({
  ticker: z.string(),
  // Formats, not regexes: the zod ISO regexes would add kilobytes to every tools/list.
  snapshot_at: z.string().meta({ format: 'date-time' }),
  session_date_et: z.string().meta({ format: 'date' }),
  // As the API sent it: an open set (SNAPSHOT_STATES are those known).
  state: z.string(),
  spot_usd: z.number(),
  strikes: z.array(dealerStrike),
  summary: dealerSummary,
});

export const responseMeta = z.object({
  request_id: z.string(),
  cache_hit: z.boolean(),
  data_freshness_seconds: z.number().int(),
  truncated: z.boolean(),
  /** Null on the last page. */
  next_cursor: z.string().nullable(),
  notice: z.string(),
  rate_limit_remaining: z.number().int(),
  quota_remaining_pct: z.number(),
  data_source: z.string(),
});

export const dealerGexHistoryResponse = z.object({
  data: z.array(dealerSnapshot),
  _meta: responseMeta,
});

/** Columns of a `levels` row, in order: compact enough for a whole session in 3,000 tokens. */
export const LEVEL_COLUMNS = [
  'time_et',
  'spot_usd',
  'gamma_flip_usd',
  'king_strike_usd',
  'call_wall_strike_usd',
  'put_wall_strike_usd',
  'major_positive_strike_usd',
  'major_negative_strike_usd',
  'total_gex_usd_m',
] as const;

export const dealerLevels = z.object({
  columns: z.array(z.string()).describe('time_et is HH:MM ET; total_gex_usd_m is total GEX in USD millions per 1% move.'),
  sessions: z.array(
    z.object({
      session_date_et: z.string(),
      rows: z.array(z.array(z.union([z.string(), z.number()]))).describe('One row per 5-minute snapshot, newest first.'),
    }),
  ),
});

/** `view=sessions`: one summary per session (src/mcp/answers/dealer-sessions.ts); loose here, as every field is named in its row. */
export const dealerSessions = z.object({
  session_summaries: z
    .array(z.record(z.string(), z.union([z.string(), z.number()])))
    .describe('Newest first. regime: spot against the gamma flip; regime_since: when the closing regime began.'),
});

/** What the tool's `data` holds: snapshots (latest, full), levels or session summaries. */
/** A snapshot as the tool answers it: the API's, with the known state a value such as CLOSED stands for beside it. */
export const dealerToolSnapshot = dealerSnapshot.extend({
  // The known state a value such as CLOSED or final stands for.
  state_normalized: z.enum(SNAPSHOT_STATES).optional(),
});

export const dealerToolData = z.union([z.array(dealerToolSnapshot.partial({ strikes: true })), dealerLevels, dealerSessions]);

/** A snapshot as the API sends it: open values (`state`, `node_type`) as they come. */
export type DealerSnapshot = z.infer<typeof dealerSnapshot>;
/** A snapshot as the tool reads it (src/mcp/reading/dealer-snapshot.ts). */
export type ReadDealerSnapshot = z.infer<typeof dealerToolSnapshot>;
