/** The dealer gamma-exposure history response, field for field as the spec gives it. */
import * as z from 'zod';

export const dealerStrike = z.object({
  strike_usd: z.number(),
  net_gex_usd: z.number(),
  node_type: z.string(),
  rank: z.number().int(),
  relative_strength: z.number(),
});

export const dealerSummary = z.object({
  total_gex_usd: z.number(),
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
  session_date_et: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .meta({ format: 'date' }),
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

export type DealerSnapshot = z.infer<typeof dealerSnapshot>;
export type ResponseMeta = z.infer<typeof responseMeta>;
