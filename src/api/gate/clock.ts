/**
 * Time as the gate's parts see it: injected, so that every part runs on a fake clock in
 * tests. Timers here are never unref'd: a caller awaits them.
 */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  now(): number;
  /** Runs `run` once after `ms` (clamped to what a Node timer can hold). */
  after(ms: number, run: () => void): Timer;
}

/** Node timers overflow above 2^31-1 ms (about 24.8 days) and then fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, run) {
    const timer = setTimeout(run, Math.min(MAX_TIMER_MS, Math.max(0, ms)));
    return { cancel: () => clearTimeout(timer) };
  },
};
