/**
 * Who is calling, carried with the request's async context from the HTTP guard to the
 * parts that need it (the fair-share gate, the audit line, the per-user key) without
 * threading it through every signature in between.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';

export interface Caller {
  /** The token's `sub`; for the static token, one fixed name. */
  readonly subject: string;
  /** The OAuth client the token was issued to (`client_id`, else `azp`). */
  readonly clientId: string;
}

/** The one user of the static bearer token (single-user mode and CI). */
export const STATIC_TOKEN_CALLER: Caller = { subject: 'static-token', clientId: 'static-token' };

const context = new AsyncLocalStorage<Caller>();

export function runAsCaller<T>(caller: Caller, run: () => T): T {
  return context.run(caller, run);
}

/** The caller of the request being served; undefined over stdio and outside a request. */
export function currentCaller(): Caller | undefined {
  return context.getStore();
}

/** A short one-way name for a value that must not be written out (arguments, an account). */
export function digestOf(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}
