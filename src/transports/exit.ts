/** How long a shutdown may spend closing connections before the process ends anyway. */
export const EXIT_GRACE_MS = 3000;

/**
 * Ends the process with `code` once `closing` settles, or after EXIT_GRACE_MS if it never
 * does: the host waits for this process to end, and a close that hangs (an upstream or a
 * Redis that stopped answering) must not keep it waiting.
 */
export function exitAfter(closing: Promise<unknown>, code: number): void {
  setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  void closing.finally(() => process.exit(code));
}
