/**
 * A Retry-After pause for the whole account (RATE_LIMITED, CIRCUIT_OPEN): nobody on the
 * account sends before it ends. Pauses only ever extend; a shorter one never cuts a longer.
 */
export class Pause {
  private until = 0;

  extend(untilMs: number): void {
    if (Number.isFinite(untilMs)) this.until = Math.max(this.until, untilMs);
  }

  /** The instant sending may resume, or undefined when not paused at `now`. */
  endsAt(now: number): number | undefined {
    return this.until > now ? this.until : undefined;
  }
}
