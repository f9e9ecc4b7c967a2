import { EXIT_GRACE_MS } from '../config/http.js';

/**
 * Ends the process with `code` once `closing` settles, or after `graceMs` if it never
 * does: the host waits for this process to end, and a close that hangs (an upstream or a
 * Redis that stopped answering) must not keep it waiting.
 */
export function exitAfter(closing: Promise<unknown>, code: number, graceMs = EXIT_GRACE_MS): void {
  setTimeout(() => process.exit(code), graceMs).unref();
  void closing.finally(() => process.exit(code));
}
