/**
 * How long an --http shutdown may spend before the process ends anyway: calls in flight get
 * most of it (README: under Docker's 10 s stop timeout, long enough for a loaded node).
 */
export const EXIT_GRACE_MS = 8000;
/** A stdio server has no call to finish once its host closed stdin: only closing is bounded. */
export const STDIO_EXIT_GRACE_MS = 3000;

/**
 * Ends the process with `code` once `closing` settles, or after `graceMs` if it never
 * does: the host waits for this process to end, and a close that hangs (an upstream or a
 * Redis that stopped answering) must not keep it waiting.
 */
export function exitAfter(closing: Promise<unknown>, code: number, graceMs: number): void {
  setTimeout(() => process.exit(code), graceMs).unref();
  void closing.finally(() => process.exit(code));
}
