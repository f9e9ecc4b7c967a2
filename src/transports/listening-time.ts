/**
 * How long the server has been able to read its clients: wall time, with each stall of
 * its event loop counted as two ticks at most. The connection budget (http-limits.ts)
 * judges a connection slow by how long it held a slot without sending a request; while the
 * loop is stalled (a burst of calls on a loaded machine) nobody's request can be read, and
 * 200 calls opened at once by one HTTP client lost connections as "slow" (ECONNRESET),
 * though each had sent its request at once. Time the loop could not listen is not the
 * client's.
 */
export interface ListeningTime {
  /** Milliseconds of listening so far (a count from an arbitrary start). */
  now(): number;
  stop(): void;
}

const TICK_MS = 100;

export function listeningTime(options: { tickMs?: number; wallNow?: () => number } = {}): ListeningTime {
  const tickMs = options.tickMs ?? TICK_MS;
  const wallNow = options.wallNow ?? Date.now;
  // A late tick is a stall: of it, no more than two ticks count.
  const most = 2 * tickMs;
  let listened = 0;
  let last = wallNow();
  const timer = setInterval(() => {
    const wall = wallNow();
    listened += Math.min(Math.max(0, wall - last), most);
    last = wall;
  }, tickMs);
  timer.unref();
  return {
    now: () => listened + Math.min(Math.max(0, wallNow() - last), most),
    stop: () => clearInterval(timer),
  };
}
