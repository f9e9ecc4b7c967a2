import { HTTP_ENV } from '../config/env-vars.js';

/** How long a shutdown may spend closing connections before the process ends anyway, by default. */
export const EXIT_GRACE_MS = 3000;
/** The shortest grace --http accepts: the last second of it is kept for answering the calls it stops. */
const MIN_GRACE_MS = 2000;

/**
 * The shutdown grace of --http from the environment (milliseconds, at least 2 s), or the
 * default. A deployment whose orchestrator waits longer (Kubernetes: 30 s) may let calls in
 * flight finish rather than answer them CANCELLED after 2 s.
 */
export function shutdownGraceMs(env: NodeJS.ProcessEnv): number {
  const value = Number(env[HTTP_ENV.shutdownGraceMs]);
  return Number.isInteger(value) && value >= MIN_GRACE_MS ? value : EXIT_GRACE_MS;
}

/**
 * Ends the process with `code` once `closing` settles, or after `graceMs` if it never
 * does: the host waits for this process to end, and a close that hangs (an upstream or a
 * Redis that stopped answering) must not keep it waiting.
 */
export function exitAfter(closing: Promise<unknown>, code: number, graceMs = EXIT_GRACE_MS): void {
  setTimeout(() => process.exit(code), graceMs).unref();
  void closing.finally(() => process.exit(code));
}
