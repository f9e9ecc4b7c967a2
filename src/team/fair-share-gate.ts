/**
 * Fair shares of one account among its signed-in users. In front of the account gate,
 * each caller waits in a queue of its own and the queues take turns (the equal-weight case
 * of weighted fair queueing): only one request at a time waits inside the account gate,
 * so whenever a turn of the window or an in-flight slot comes up it goes to the user
 * whose turn it is. Who that is, is decided by `Turns`: among this process's users
 * (LocalTurns), or among the users waiting on every node of the account (SharedTurns, on
 * Redis). One member's burst of 500 calls then delays another member's single call by at
 * most the one call already at the gate.
 */
import { abortError } from '../api/errors.js';
import type { AccountGate, GateView, PermitRequest, SendPermit } from '../api/gate/account-gate.js';
import { systemClock, type Clock, type Timer } from '../api/gate/clock.js';
import { GateDecorator } from '../api/gate/gate-decorator.js';
import { turnMissedError } from '../api/gate/too-late.js';
import { lateInTurns, LateTurns, turnTooLateError } from './late-turns.js';
import { SharedTurns, type SharedRedis } from './shared-turns.js';
import { LocalTurns, type Turns } from './turns.js';
import { MAX_PACE_SLEEP_MS, WindowPacer, type WindowNow } from './window-pacer.js';

interface Waiter {
  readonly who: string;
  readonly request: PermitRequest;
  readonly resolve: (permit: SendPermit) => void;
  readonly reject: (error: unknown) => void;
  timer?: Timer;
  onAbort?: () => void;
}

export interface FairShareOptions {
  /** Who is asking; by default the signed-in user of the call the request is sent for (its `call`). */
  who?: (request: PermitRequest) => string | undefined;
  /** Whose turn it is; by default among this process's users alone. */
  turns?: Turns;
  clock?: Clock;
  /** Hands the window out across its length while the team has several members (window-pacer.ts); false: as fast as the gate allows. */
  pacer?: WindowPacer | false;
}

export class FairShareGate extends GateDecorator {
  private readonly queues = new Map<string, Waiter[]>();
  private readonly turns: Turns;
  private readonly clock: Clock;
  private readonly pacer: WindowPacer | undefined;
  /** The account's window as this gate's requests heard it: whose turn comes after its deadline. */
  private readonly late = new LateTurns();
  /** The call handed to the account gate and waiting there for its permit: ahead of every call queued here. */
  private atGate = 0;
  private pumping = false;
  /** Something changed while the pump was asking: ask again rather than sleep. */
  private again = false;
  private wakeUp: (() => void) | undefined;
  private closed = false;

  constructor(
    inner: AccountGate,
    private readonly options: FairShareOptions,
  ) {
    super(inner);
    this.clock = options.clock ?? systemClock;
    this.turns = options.turns ?? new LocalTurns();
    this.pacer = options.pacer === false ? undefined : (options.pacer ?? new WindowPacer({ clock: this.clock }));
    this.turns.onWake(() => this.kick());
  }

  override acquire(request: PermitRequest): Promise<SendPermit> {
    if (request.signal.aborted) return Promise.reject(abortError(request.signal));
    const who = (this.options.who ?? callerOf)(request) ?? 'local';
    this.pacer?.saw(who);
    return new Promise<SendPermit>((resolve, reject) => {
      const waiter: Waiter = { who, request, resolve, reject };
      // Waiting for its turn among users counts against the call's deadline like any other wait.
      waiter.timer = this.clock.after(request.deadline - this.clock.now(), () => {
        if (this.leave(who, waiter)) reject(turnMissedError(Math.max(1, Math.ceil((request.deadline - this.clock.now()) / 1000))));
      });
      waiter.onAbort = () => {
        if (this.leave(who, waiter)) reject(abortError(request.signal));
      };
      request.signal.addEventListener('abort', waiter.onAbort, { once: true });
      const queue = this.queues.get(who);
      if (queue) queue.push(waiter);
      else {
        this.queues.set(who, [waiter]);
        // A user who starts waiting may be the one whose turn comes next: across nodes, said
        // at once, so that no other node's turn goes first while this pump sleeps on the pace.
        this.again = true;
        this.turns.waitingChanged(this.waitingUsers());
      }
      this.kick();
      // Told at once when its turn cannot come before its deadline, not at the deadline.
      this.refuseLate();
      // Still waiting for its turn: say so, as the account gate does for its own waits, so a
      // caller asking for progress hears that its call is queued rather than nothing at all.
      const ahead = [...this.queues.values()].reduce((sum, q) => sum + q.length, 0) - 1;
      if (this.queues.get(who)?.includes(waiter))
        request.onWait?.(0, `${ahead + 1} call${ahead === 0 ? '' : 's'} of the account's users ahead, taking turns`);
    });
  }

  override async view(): Promise<GateView> {
    const view = await this.inner.view();
    let queued = 0;
    for (const queue of this.queues.values()) queued += queue.length;
    return { ...view, queued: view.queued + queued };
  }

  override async close(): Promise<void> {
    this.closed = true;
    this.wakeUp?.();
    await this.turns.close();
    await this.inner.close();
  }

  private kick(): void {
    if (this.pumping) {
      this.again = true;
      this.wakeUp?.();
      return;
    }
    void this.pump();
  }

  /**
   * Hands the next user's oldest request to the account gate, once the previous one has its
   * permit; between turns, waits until it is this process's turn or something changes.
   */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (!this.closed && this.queues.size > 0) {
        this.again = false;
        // The window's pace first: the turn goes to whoever's it is when the request may go,
        // not before. Across nodes too: a turn taken first and held through the pace's sleep
        // made a member who started waiting on another node wait that sleep and then one of
        // their own (two intervals, beside a burst, where one process took one).
        const paceMs = await this.paceDelay();
        if (paceMs > 0) {
          if (this.again) continue;
          const whole = await this.sleep(paceMs);
          // Across nodes the pace is asked again holding the turn: after a whole sleep, the
          // turn is asked for at once rather than after one more question to Redis.
          if (!whole || !this.turns.acrossNodes || paceMs >= MAX_PACE_SLEEP_MS) continue;
        }
        const turn = await this.turns.next([...this.queues.keys()]);
        if ('waitMs' in turn) {
          if (!this.again) await this.sleep(turn.waitMs);
          continue;
        }
        // Across nodes, the pace again, holding the turn: each node plans the window from its
        // own first sight of it, and a node whose plan was stricter held its members back (a
        // light member's call 8-9 s) while the others' plans let a burst through. Who goes next
        // is the shared turns' to say (a member waiting here is known there from the moment
        // they start: acquire); the pace only says when.
        if (this.turns.acrossNodes) await this.pacedHoldingTurn();
        const queue = this.queues.get(turn.user);
        const waiter = queue?.shift();
        if (queue?.length === 0) this.queues.delete(turn.user);
        if (!waiter) {
          // The user's calls left while the turn was given: it passes to whoever is next.
          this.turns.done(this.waitingUsers());
          continue;
        }
        this.settle(waiter);
        this.atGate += 1;
        try {
          const permit = await this.inner.acquire(waiter.request);
          this.atGate -= 1;
          waiter.resolve(this.heardOnRelease(permit, waiter.request.free));
        } catch (error) {
          this.atGate -= 1;
          waiter.reject(error);
        } finally {
          this.turns.done(this.waitingUsers());
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Waits for the window's pace while this node holds the turn (woken to look again by any change). */
  private async pacedHoldingTurn(): Promise<void> {
    for (;;) {
      const paceMs = await this.paceDelay();
      if (paceMs <= 0 || this.closed) return;
      await this.sleep(paceMs);
    }
  }

  /** How long the window's pace holds the next request back (0 when unpaced or unknown). */
  private async paceDelay(): Promise<number> {
    const pacer = this.pacer;
    if (!pacer?.pacing()) return 0;
    try {
      const view = await this.inner.view();
      const window: WindowNow = {
        remaining: view.rate_remaining,
        resetsAt: view.rate_window_resets_at === null ? null : Date.parse(view.rate_window_resets_at),
      };
      return pacer.delay(window);
    } catch {
      // The gate cannot say where its window stands: it still keeps the limits itself.
      return 0;
    }
  }

  /**
   * An answer moves the window (its headers): the calls waiting are judged against it
   * again, and the pace is asked again then, not only when its sleep ends.
   */
  private heardOnRelease(permit: SendPermit, free: boolean): SendPermit {
    const sent = this.late.sent(free, this.clock.now());
    let released = false;
    return {
      release: (outcome) => {
        permit.release(outcome);
        if (released) return;
        released = true;
        this.late.heard(sent, outcome, this.clock.now());
        this.refuseLate();
        if (this.pacer && !this.closed && this.queues.size > 0) this.kick();
      },
    };
  }

  /** Wait or fail among the users: every call whose turn comes after its deadline (late-turns.ts) answers now with the wait. */
  private refuseLate(): void {
    const now = this.clock.now();
    const late = lateInTurns(this.queues.values(), (waiter, ahead) => {
      // Its soonest turn and then the request itself must fit before its deadline, as the account gate judges it.
      return this.late.turnAt(this.atGate + ahead, now, 'soonest') + this.late.requestMs() > waiter.request.deadline;
    });
    for (const { waiter, place } of late) {
      if (!this.leave(waiter.who, waiter)) continue;
      // Told the expected wait, counting the refused before it: they do not all come back at once.
      const told = Math.max(this.late.turnAt(this.atGate + place, now, 'expected'), this.late.turnAt(this.atGate + place, now, 'soonest'));
      waiter.reject(turnTooLateError(told - now, place));
    }
  }

  /** Resolves true when the whole time passed, false when woken sooner. */
  private sleep(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = this.clock.after(ms, () => wake(true));
      const wake = (whole: boolean): void => {
        timer.cancel();
        this.wakeUp = undefined;
        resolve(whole);
      };
      this.wakeUp = () => wake(false);
    });
  }

  private waitingUsers(): string[] {
    return [...this.queues.keys()];
  }

  private settle(waiter: Waiter): void {
    waiter.timer?.cancel();
    if (waiter.onAbort) waiter.request.signal.removeEventListener('abort', waiter.onAbort);
  }

  private leave(who: string, waiter: Waiter): boolean {
    const queue = this.queues.get(who);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queue || index < 0) return false;
    queue.splice(index, 1);
    this.settle(waiter);
    if (queue.length === 0) {
      this.queues.delete(who);
      this.turns.waitingChanged(this.waitingUsers());
    }
    return true;
  }
}

/** Fair shares among the users of this process, or of every node of the account when it is shared on Redis. */
export function fairShareGate(inner: AccountGate, redis: SharedRedis | undefined): FairShareGate {
  return new FairShareGate(inner, redis ? { turns: new SharedTurns(redis) } : {});
}

function callerOf(request: PermitRequest): string | undefined {
  return request.call?.caller?.subject;
}
