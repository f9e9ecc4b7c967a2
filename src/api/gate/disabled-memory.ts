/**
 * Capabilities that answered SERVICE_DISABLED, remembered for a while so that calls to
 * them fail here instead of asking again (the spec: degrade, retry at low frequency).
 */
export class DisabledMemory {
  private readonly until = new Map<string, number>();

  remember(capability: string, untilMs: number): void {
    this.until.set(capability, untilMs);
  }

  /** Milliseconds left of the memory, or undefined once forgotten. */
  leftFor(capability: string, now: number): number | undefined {
    const until = this.until.get(capability);
    if (until === undefined) return undefined;
    if (until <= now) {
      this.until.delete(capability);
      return undefined;
    }
    return until - now;
  }

  list(now: number): string[] {
    return [...this.until.keys()].filter((capability) => this.leftFor(capability, now) !== undefined);
  }
}
