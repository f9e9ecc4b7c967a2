/**
 * How many requests this process keeps in flight. The account allows 5 in all; when
 * IN_FLIGHT_EXCEEDED says another process of the account is sending too, this process
 * halves its own cap (multiplicative decrease, once per burst of refusals) and grows it
 * back by one slot per quiet period (additive increase), so that two or three processes
 * settle on shares that add up to the account's limit instead of refusing each other.
 */
export interface InFlightCapOptions {
  /** The account's limit (spec: 5). */
  max?: number;
  /** Refusals closer together than this are one burst: the cap halves once for it. */
  burstMs?: number;
  /** A quiet period (no refusal) after which the cap grows by one slot. */
  growAfterMs?: number;
}

export class InFlightCap {
  readonly max: number;
  private cap: number;
  private active = 0;
  private readonly burstMs: number;
  private readonly growAfterMs: number;
  private lastDecreaseAt = -Infinity;
  private lastChangeAt = 0;

  constructor(options: InFlightCapOptions = {}) {
    this.max = options.max ?? 5;
    this.cap = this.max;
    this.burstMs = options.burstMs ?? 500;
    this.growAfterMs = options.growAfterMs ?? 20_000;
  }

  /** The current cap, after any growth that is due at `now`. */
  current(now: number): number {
    if (this.cap < this.max && now - this.lastChangeAt >= this.growAfterMs) {
      const steps = Math.floor((now - this.lastChangeAt) / this.growAfterMs);
      this.cap = Math.min(this.max, this.cap + steps);
      this.lastChangeAt += steps * this.growAfterMs;
    }
    return this.cap;
  }

  hasRoom(now: number): boolean {
    return this.active < this.current(now);
  }

  get inFlight(): number {
    return this.active;
  }

  take(): void {
    this.active += 1;
  }

  give(): void {
    this.active = Math.max(0, this.active - 1);
  }

  /** IN_FLIGHT_EXCEEDED: another process is sending. */
  refused(now: number): void {
    if (now - this.lastDecreaseAt < this.burstMs) return;
    this.current(now);
    this.cap = Math.max(1, Math.floor(this.cap / 2));
    this.lastDecreaseAt = now;
    this.lastChangeAt = now;
  }
}
