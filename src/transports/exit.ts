import { HTTP_ENV } from '../config/env-vars.js';

/** How long a shutdown may spend closing connections before the process ends anyway, by default. */
export const EXIT_GRACE_MS = 3000;
/** The shortest grace --http accepts: the last second of it is kept for answering the calls it stops. */
const MIN_GRACE_MS = 2000;

/** The shutdown grace of --http, and what was wrong with the value given, if anything (said at start). */
export interface ShutdownGrace {
  readonly ms: number;
  readonly warning?: string;
}

/**
 * The shutdown grace of --http from the environment (milliseconds, at least 2 s), or the
 * default. A deployment whose orchestrator waits longer (Kubernetes: 30 s) may let calls in
 * flight finish rather than answer them CANCELLED after 2 s. A value below the floor is raised
 * to it and one that is not a whole number is the default, each with a warning, as the other
 * settings do.
 */
export function shutdownGrace(env: NodeJS.ProcessEnv): ShutdownGrace {
  const name = HTTP_ENV.shutdownGraceMs;
  const given = env[name];
  if (given === undefined || given === '') return { ms: EXIT_GRACE_MS };
  const value = Number(given);
  if (!Number.isInteger(value))
    return {
      ms: EXIT_GRACE_MS,
      warning: `${name} "${given.slice(0, 40)}" is not a whole number of milliseconds; using the default (${EXIT_GRACE_MS})`,
    };
  if (value < MIN_GRACE_MS)
    return {
      ms: MIN_GRACE_MS,
      warning: `${name} ${value} is below ${MIN_GRACE_MS} ms, the last second of which answers the calls stopped; using ${MIN_GRACE_MS}`,
    };
  return { ms: value };
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
