/** The metadata every successful result carries, as the agent sees it. */
import * as z from 'zod';

export const resultMetaSchema = z.object({
  operation_id: z.string(),
  request_id: z.string().nullable(),
  cache_hit: z.boolean(),
  /** Seconds since this answer left the API (0 when fresh). */
  age_seconds: z.number(),
  data_freshness_seconds: z.number().nullable(),
  next_cursor: z.string().nullable(),
  truncated: z.boolean(),
  notice: z.string().nullable(),
  rate_limit_remaining: z.number().nullable(),
  quota_remaining: z.number().nullable(),
  quota_remaining_pct: z.number().nullable(),
  data_source: z.string().nullable(),
  /** Set by the MCP layer: demo data, and what was trimmed to fit the result budget. */
  simulated: z.boolean().optional(),
  trimmed: z
    .object({
      rows_returned: z.number(),
      rows_total: z.number(),
      strikes_returned: z.number().optional(),
      strikes_total: z.number().optional(),
      how_to_get_more: z.string(),
    })
    .optional(),
});

export type ResultMeta = z.infer<typeof resultMetaSchema>;
