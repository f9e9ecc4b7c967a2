/** Waiting for something to happen (an event another process causes), not for time to pass. */

/**
 * Resolves once `ready()` holds, checking at each turn of the event loop; fails naming
 * `what` if it has not after `timeoutMs` (a bound against a hang, not a measured wait).
 */
export async function eventually(ready: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > giveUpAt) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
