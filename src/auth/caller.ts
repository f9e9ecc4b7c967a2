/**
 * Who is calling: the HTTP guard's answer, carried in each call's context
 * (src/api/call-context.ts) to the parts that need it: the fair-share gate, the daily
 * budget, the audit line and the per-user key.
 */
import { createHash } from 'node:crypto';

export interface Caller {
  /** The token's `sub`; for the static token, one fixed name. */
  readonly subject: string;
  /** The OAuth client the token was issued to (`client_id`, else `azp`). */
  readonly clientId: string;
}

/** The one user of the static bearer token (single-user mode and CI). */
export const STATIC_TOKEN_CALLER: Caller = { subject: 'static-token', clientId: 'static-token' };

/** A short one-way name for a value that must not be written out (arguments, an account). */
export function digestOf(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}
