/**
 * The metadata the client gives every successful answer. The MCP layer extends it into
 * the one meta schema the agent sees (toolMetaSchema in src/mcp/results.ts, which alone
 * says what was trimmed). Unknown values are left out rather than null: nullable types
 * are the least portable part of a tool schema.
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

/**
 * A page's meta when the dataset's document lists no cursor parameter: a next page the upstream
 * names cannot be asked for (a cursor of ours to it would read the first page again, and again),
 * so the page reads as a list the API cut, whose answer says the rest cannot be read.
 */
export function withoutUnreadableNext(meta: ResultMeta): ResultMeta {
  if (meta.next_cursor === undefined) return meta;
  const cut = { ...meta, truncated: true };
  delete cut.next_cursor;
  delete cut.content_cut;
  return cut;
}

/** Leaves out the fields whose value is unknown (null or undefined). */
export function knownOnly<T extends Record<string, unknown>>(value: { [K in keyof T]: T[K] | null | undefined }): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as T;
}
