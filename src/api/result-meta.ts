/**
 * The metadata the client gives every successful answer. The MCP layer extends it into
 * the one meta schema the agent sees (toolMetaSchema in src/mcp/answers/results.ts, which alone
 * says what was trimmed). Unknown values are left out rather than null: nullable types
 * are the least portable part of a tool schema.
 */
import * as z from 'zod';
import { nextPageSchema } from './next-page.js';
import { pagingEvidenceSchema } from './paging-evidence.js';

export const resultMetaSchema = z.object({
  operation_id: z.string(),
  request_id: z.string().optional(),
  cache_hit: z.boolean(),
  /** Seconds since this answer left the API (0 when fresh). */
  age_seconds: z.number(),
  data_freshness_seconds: z.number().optional(),
  /** What the answer said of the pages after it (paging-evidence.ts): kept with the answer, read per dataset. */
  paging: pagingEvidenceSchema.optional(),
  /** The next page, in a form the dataset's document lets us ask for (next-page.ts); set per call, never cached. */
  next_page: nextPageSchema.optional(),
  /** Why rows the API holds are out of reach (next-page.ts), where it is not a limit a larger one would lift; set per call. */
  out_of_reach: z.string().optional(),
  /** Whether rows follow this page is not known: the API gave no total and no flag (next-page.ts). */
  end_unknown: z.boolean().optional(),
  /** Rows left out: the upstream's own `truncated`, its flags or totals, or rows this reader left unread. */
  truncated: z.boolean(),
  /**
   * True when `truncated` is only fields or long text cut inside rows (the notice says which):
   * no row is left out, so nothing more is to be read. Never shown to the agent as such.
   */
  content_cut: z.boolean().optional(),
  notice: z.string().optional(),
  rate_limit_remaining: z.number().optional(),
  quota_remaining: z.number().optional(),
  quota_remaining_pct: z.number().optional(),
  data_source: z.string().optional(),
});

export type ResultMeta = z.infer<typeof resultMetaSchema>;

/** Whether rows were left out (by the API or the reader), not only fields or text cut inside them. */
export function rowsLeftOut(meta: Pick<ResultMeta, 'truncated' | 'content_cut'>): boolean {
  return meta.truncated && meta.content_cut !== true;
}

/** Leaves out the fields whose value is unknown (null or undefined). */
export function knownOnly<T extends Record<string, unknown>>(value: { [K in keyof T]: T[K] | null | undefined }): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as T;
}
