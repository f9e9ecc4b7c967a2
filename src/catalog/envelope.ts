/**
 * The error envelope, once. `errorEnvelopeSchema` is the spec's shape (Resources section): what
 * the simulator sends, what the OpenAPI document describes (its JSON Schema is derived
 * here) and what tests hold the simulator to. `receivedEnvelope` reads an upstream's body,
 * which is untrusted: a field of the wrong type is dropped rather than failing the read,
 * and a code that is not upper snake case is not taken for a code.
 */
import * as z from 'zod';

/** A code as the spec draws them (upper snake case). */
const code = z.string().regex(/^[A-Z][A-Z0-9_]{1,63}$/);

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code,
      tags: z.array(z.string()),
      message: z.string(),
      docs_url: z.url(),
      request_id: z.string().nullable(),
      hint: z.string().optional(),
      /** Only recoverable errors carry it, and then it is true. */
      recoverable: z.literal(true).optional(),
      retry_after_seconds: z.number().int().min(1).optional(),
    }),
  })
  .strict();

export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** The envelope's JSON Schema, for the OpenAPI document. */
export const ERROR_ENVELOPE_JSON_SCHEMA: Record<string, unknown> = (() => {
  const json = z.toJSONSchema(errorEnvelopeSchema, { io: 'output' }) as Record<string, unknown>;
  delete json['$schema'];
  return json;
})();

/** A field of an upstream's envelope: kept when it has the spec's type, dropped otherwise. */
const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/** An upstream's error envelope, read field by field; unknown fields are ignored. */
export const receivedEnvelope = z.object({
  error: z.object({
    code,
    message: lenient(z.string()),
    hint: lenient(z.string()),
    docs_url: lenient(z.string()),
    request_id: lenient(z.string()),
    tags: lenient(z.array(z.unknown())).transform((tags) => (tags ?? []).filter((t): t is string => typeof t === 'string')),
    recoverable: lenient(z.boolean()),
    retry_after_seconds: z.unknown().optional(),
  }),
});

/**
 * Whether a body is an error envelope at all: `{error: {...}}` and nothing else but MCP's
 * `_meta`. Such a body is never data, whatever status it came with. Checked by hand: asked
 * of every answer the cache stores, a zod schema built for each question cost about a third
 * of a millisecond a call.
 */
export function isEnvelopeShaped(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  let hasError = false;
  for (const key of Object.keys(body)) {
    if (key === 'error') hasError = typeof (body as { error: unknown }).error === 'object';
    else if (key !== '_meta') return false;
  }
  return hasError;
}
