/** A clock for the gate's parts that moves only when a test says so. */
import type { Clock, Timer } from '../../src/api/gate/clock.js';

interface Scheduled {
  at: number;
  run: () => void;
  cancelled: boolean;
}

export class FakeClock implements Clock {
  private timers: Scheduled[] = [];

  constructor(private time = 1_800_000_000_000) {}

  now(): number {
    return this.time;
  }

  after(ms: number, run: () => void): Timer {
    const timer: Scheduled = { at: this.time + Math.max(0, ms), run, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  }

  /** Moves time forward, firing due timers in order and letting promise callbacks run after each. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((t) => !t.cancelled && t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = Math.max(this.time, due.at);
      due.run();
    }
    this.time = target;
    await settle();
  }

  /** Timers still to fire. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
}

/** Lets every queued promise callback run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
