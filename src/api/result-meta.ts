/**
 * The metadata every successful result carries, as the agent sees it. Unknown values are
 * left out rather than null: nullable types are the least portable part of a tool schema.
 */
import * as z from 'zod';

export const resultMetaSchema = z.object({
  operation_id: z.string(),
  request_id: z.string().optional(),
  cache_hit: z.boolean(),
  /** Seconds since this answer left the API (0 when fresh). */
  age_seconds: z.number(),
  data_freshness_seconds: z.number().optional(),
  next_cursor: z.string().optional(),
  truncated: z.boolean(),
  notice: z.string().optional(),
  rate_limit_remaining: z.number().optional(),
  quota_remaining: z.number().optional(),
  quota_remaining_pct: z.number().optional(),
  data_source: z.string().optional(),
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

/** Leaves out the fields whose value is unknown (null or undefined). */
export function knownOnly<T extends Record<string, unknown>>(value: { [K in keyof T]: T[K] | null | undefined }): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as T;
}
