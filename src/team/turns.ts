/**
 * Whose call goes next to the account gate, among the users with calls waiting. The
 * fair-share gate asks for a turn, hands that user's oldest call to the account gate, and
 * says when it has its permit; only then is the next turn given. In one process the
 * choice is local (LocalTurns); with several nodes it is made in Redis among the users
 * waiting on any node (src/team/shared-turns.ts).
 */

/** A user whose call goes now, or how long to wait before asking again (unless woken sooner). */
export type Turn = { user: string } | { waitMs: number };

export interface Turns {
  /** Whether turns are taken with other nodes (then a node waits for the window's pace holding its turn). */
  readonly acrossNodes: boolean;
  /** The next turn, among `waiting` (the users with calls waiting here, never empty). */
  next(waiting: readonly string[]): Promise<Turn>;
  /** The turn's call has its permit, or gave up: the next turn may be given. `waiting` as now. */
  done(waiting: readonly string[]): void;
  /** Users with calls waiting here changed outside a turn (a call was cancelled or ran out of time). */
  waitingChanged(waiting: readonly string[]): void;
  /** `wake` is called when a turn may have come up elsewhere: ask again. */
  onWake(wake: () => void): void;
  close(): Promise<void>;
}

/**
 * Turns in this process: the user served least recently goes next. With everyone busy
 * that is plain round robin; a user who just started waiting goes before those served
 * since (as a newly busy flow in weighted fair queueing), and one whose queue emptied for
 * a moment keeps their place rather than jumping the line.
 */
export class LocalTurns implements Turns {
  readonly acrossNodes = false;
  private readonly lastTurn = new Map<string, number>();
  private turns = 0;

  next(waiting: readonly string[]): Promise<Turn> {
    return Promise.resolve({ user: this.pick(waiting) });
  }

  /** The same choice, for a caller that cannot wait (the fallback of shared turns). */
  pick(waiting: readonly string[]): string {
    let who = waiting[0] ?? 'local';
    for (const user of waiting) if ((this.lastTurn.get(user) ?? -1) < (this.lastTurn.get(who) ?? -1)) who = user;
    this.turns += 1;
    this.lastTurn.set(who, this.turns);
    return who;
  }

  done(): void {
    // The next turn is given as soon as it is asked for.
  }

  waitingChanged(): void {
    // Nobody elsewhere waits on this process's users.
  }

  onWake(): void {
    // Turns come up only here.
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
