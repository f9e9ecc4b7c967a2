/**
 * Fair shares of one account among its signed-in users. In front of the account gate,
 * each caller waits in a queue of its own and the queues take turns (round robin, the
 * equal-weight case of weighted fair queueing, least recently served first): only one request at a time waits inside
 * the account gate, so whenever a turn of the window or an in-flight slot comes up it goes
 * to the user served least recently. One member's burst of 500 calls then delays another
 * member's single call by at most one turn of each other busy member.
 */
import { abortError, ApiError } from '../api/errors.js';
import type { AccountGate, GateView, PermitRequest, SendPermit } from '../api/gate/account-gate.js';
import { systemClock, type Clock, type Timer } from '../api/gate/clock.js';
import { GateDecorator } from '../api/gate/gate-decorator.js';

interface Waiter {
  readonly request: PermitRequest;
  readonly resolve: (permit: SendPermit) => void;
  readonly reject: (error: unknown) => void;
  timer?: Timer;
  onAbort?: () => void;
}

export interface FairShareOptions {
  /** Who is asking: the signed-in user of the current request (src/auth/caller.ts). */
  who: () => string | undefined;
  clock?: Clock;
}

export class FairShareGate extends GateDecorator {
  private readonly queues = new Map<string, Waiter[]>();
  /**
   * When each user last had a turn: the next turn goes to the waiting user served least
   * recently. With everyone busy that is plain round robin; a user who just started
   * waiting goes before those served since (as a newly busy flow in weighted fair
   * queueing), and one whose queue emptied for a moment keeps their place rather than
   * jumping the line.
   */
  private readonly lastTurn = new Map<string, number>();
  private turns = 0;
  private passing = false;
  private readonly clock: Clock;

  constructor(
    inner: AccountGate,
    private readonly options: FairShareOptions,
  ) {
    super(inner);
    this.clock = options.clock ?? systemClock;
  }

  override acquire(request: PermitRequest): Promise<SendPermit> {
    if (request.signal.aborted) return Promise.reject(abortError(request.signal));
    const who = this.options.who() ?? 'local';
    return new Promise<SendPermit>((resolve, reject) => {
      const waiter: Waiter = { request, resolve, reject };
      // Waiting for its turn among users counts against the call's deadline like any other wait.
      waiter.timer = this.clock.after(request.deadline - this.clock.now(), () => {
        if (this.leave(who, waiter)) reject(lateError(Math.max(1, Math.ceil((request.deadline - this.clock.now()) / 1000))));
      });
      waiter.onAbort = () => {
        if (this.leave(who, waiter)) reject(abortError(request.signal));
      };
      request.signal.addEventListener('abort', waiter.onAbort, { once: true });
      const queue = this.queues.get(who);
      if (queue) queue.push(waiter);
      else this.queues.set(who, [waiter]);
      this.pass();
      // Still waiting for its turn: say so, as the account gate does for its own waits, so a
      // caller asking for progress hears that its call is queued rather than nothing at all.
      const ahead = [...this.queues.values()].reduce((sum, q) => sum + q.length, 0) - 1;
      if (this.queues.get(who)?.includes(waiter))
        request.onWait?.(0, `${ahead + 1} call${ahead === 0 ? '' : 's'} of the account's users ahead, taking turns`);
    });
  }

  /** Hands the next user's oldest request to the account gate, once the previous one has its permit. */
  private pass(): void {
    if (this.passing) return;
    let who: string | undefined;
    for (const user of this.queues.keys())
      if (who === undefined || (this.lastTurn.get(user) ?? -1) < (this.lastTurn.get(who) ?? -1)) who = user;
    if (who === undefined) return;
    const queue = this.queues.get(who) ?? [];
    const waiter = queue.shift();
    if (queue.length === 0) this.queues.delete(who);
    if (!waiter) return this.pass();
    this.turns += 1;
    this.lastTurn.set(who, this.turns);
    this.settle(waiter);
    this.passing = true;
    this.inner.acquire(waiter.request).then(
      (permit) => {
        this.passing = false;
        waiter.resolve(permit);
        this.pass();
      },
      (error: unknown) => {
        this.passing = false;
        waiter.reject(error);
        this.pass();
      },
    );
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
    if (queue.length === 0) this.queues.delete(who);
    return true;
  }

  override async view(): Promise<GateView> {
    const view = await this.inner.view();
    let queued = 0;
    for (const queue of this.queues.values()) queued += queue.length;
    return { ...view, queued: view.queued + queued };
  }
}

function lateError(seconds: number): ApiError {
  return new ApiError({
    code: 'RATE_LIMITED',
    status: null,
    message: `This call's turn among the account's users did not come before its deadline; nothing was sent.`,
    hint: 'Call again after retry_after_seconds, or ask for fewer things at once.',
    recoverable: true,
    retryAfterSeconds: seconds,
    local: true,
  });
}
