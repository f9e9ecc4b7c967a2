/**
 * The account gate in this process: one FIFO queue in front of the rate window, the
 * Retry-After pause, the in-flight cap, the quota latch and the SERVICE_DISABLED memory.
 * The queue is ours rather than bottleneck's: wait-or-fail needs each call's place in
 * line against the server's window, which bottleneck's reservoir cannot tell.
 */
import { abortError, ApiError, cancelledError, quotaLatchedError } from '../errors.js';
import type { AccountPart } from './account-share.js';
import type { AccountGate, GateView, LimitHeaders, PermitOutcome, PermitRequest, SendPermit } from './account-gate.js';
import { systemClock, type Clock, type Timer } from './clock.js';
import { DisabledMemory } from './disabled-memory.js';
import { InFlightCap, type InFlightCapOptions } from './in-flight-cap.js';
import { ExpectedLatency } from './latency.js';
import { tooLateError } from './too-late.js';
import { Pause } from './pause.js';
import { heldThroughRetryWait, QueuePace, type WaitReading } from './queue-pace.js';
import { QuotaLatch } from './quota-latch.js';
import { RateWindow, type RateWindowOptions } from './rate-window.js';

export interface InProcessGateOptions {
  clock?: Clock;
  window?: RateWindowOptions;
  inFlight?: InFlightCapOptions;
}

interface Turn {
  at: number;
  reason: string;
}

interface Waiter {
  readonly request: PermitRequest;
  readonly resolve: (permit: SendPermit) => void;
  readonly reject: (error: ApiError) => void;
  readonly onAbort: () => void;
}

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

export class InProcessAccountGate implements AccountGate {
  private readonly clock: Clock;
  private readonly window: RateWindow;
  private readonly inFlight: InFlightCap;
  private readonly pauseUntil = new Pause();
  private readonly quota = new QuotaLatch();
  private readonly disabled = new DisabledMemory();
  private readonly latency = new ExpectedLatency();
  private readonly pace = new QueuePace();
  private readonly queue: Waiter[] = [];
  /** When each request in flight was sent, oldest first: the wave under way has left what its oldest has. */
  private readonly sentAts: number[] = [];
  /** When the calls refused by wait-or-fail were told to come back (those still ahead). */
  private toldRetries: number[] = [];
  private wake: { at: number; timer: Timer } | undefined;
  private closed = false;

  constructor(options: InProcessGateOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.window = new RateWindow(options.window);
    this.inFlight = new InFlightCap(options.inFlight);
  }

  get maxInFlight(): number {
    return this.inFlight.max;
  }

  acquire(request: PermitRequest): Promise<SendPermit> {
    if (request.signal.aborted) return Promise.reject(abortError(request.signal));
    if (this.closed) return Promise.reject(cancelledError('shutdown'));
    const now = this.clock.now();
    const latched = this.quota.refusesFor(request.free, now);
    if (latched > 0) return Promise.reject(quotaLatchedError(now + latched, latched));
    return new Promise<SendPermit>((resolve, reject) => {
      const waiter: Waiter = {
        request,
        resolve,
        reject,
        onAbort: () => {
          if (this.leave(waiter)) reject(abortError(request.signal));
          this.pump();
        },
      };
      this.queue.push(waiter);
      request.signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.pump();
      if (!this.queue.includes(waiter) || !request.onWait) return;
      const turn = this.turnOf(this.queue.indexOf(waiter), this.clock.now(), 'expected');
      request.onWait(Math.max(0, turn.at - this.clock.now()), turn.reason);
    });
  }

  pause(untilMs: number): void {
    this.pauseUntil.extend(untilMs);
    this.pump();
  }

  inFlightRefused(): void {
    this.inFlight.refused(this.clock.now());
  }

  heard(headers: LimitHeaders): void {
    const now = this.clock.now();
    this.window.observe(headers, now);
    this.quota.observe(headers, now);
  }

  /** As a fallback while the account's shared gate is away: keep to this process's part of its limits (see RateWindow.shareAmong). */
  shareAccount(part: AccountPart): void {
    this.window.shareAmong(part);
    this.inFlight.shareAmong(part);
    this.pump();
  }

  latchQuota(resetAtMs: number): void {
    this.quota.latch(resetAtMs);
    this.pump();
  }

  rememberDisabled(capability: string, untilMs: number): void {
    this.disabled.remember(capability, untilMs);
  }

  disabledFor(capability: string): Promise<number | undefined> {
    const left = this.disabled.leftFor(capability, this.clock.now());
    return Promise.resolve(left === undefined ? undefined : Math.ceil(left / 1000));
  }

  /** The same as `view()`, synchronously: this gate needs no round trip. */
  viewNow(): GateView {
    const now = this.clock.now();
    const window = this.window.view(now);
    const quota = this.quota.view(now);
    return {
      mode: 'in-process',
      mode_reason: null,
      rate_limit_per_window: window.limit,
      rate_remaining: window.remaining,
      rate_window_resets_at: iso(window.resetsAt),
      paused_until: iso(this.pauseUntil.endsAt(now)),
      in_flight: this.inFlight.inFlight,
      queued: this.queue.length,
      max_in_flight: this.inFlight.current(now),
      quota_limit: quota.limit,
      quota_remaining: quota.remaining,
      quota_resets_at: iso(quota.resetsAt),
      quota_exhausted: quota.exhaustedUntil !== null,
      disabled: this.disabled.list(now),
    };
  }

  view(): Promise<GateView> {
    return Promise.resolve(this.viewNow());
  }

  close(): Promise<void> {
    this.closed = true;
    this.wake?.timer.cancel();
    this.wake = undefined;
    for (const waiter of [...this.queue]) if (this.leave(waiter)) waiter.reject(cancelledError('shutdown'));
    return Promise.resolve();
  }

  /** Sends whatever may go now, in order; then fails every queued call whose turn comes too late. */
  private pump(): void {
    if (this.closed) return;
    const now = this.clock.now();
    let nextWake: number | undefined;
    while (this.queue.length > 0) {
      const head = this.queue[0];
      if (!head) break;
      const latched = this.quota.refusesFor(head.request.free, now);
      if (latched > 0) {
        this.leave(head);
        head.reject(quotaLatchedError(now + latched, latched));
        continue;
      }
      const pausedUntil = this.pauseUntil.endsAt(now);
      if (pausedUntil !== undefined) {
        nextWake = pausedUntil;
        break;
      }
      if (this.window.available(now) <= 0) {
        nextWake = this.window.refillsAt(now);
        break;
      }
      // The last of a window shared with N other processes: if each of them sent one more at
      // the same instant, N would overshoot. Leave those N to the others (or the next window).
      const left = this.window.accountLeft(now);
      const rivals = Math.min(this.inFlight.max - 1, this.window.rivals());
      if (left <= rivals) {
        nextWake = this.window.refillsAt(now);
        break;
      }
      // A release pumps again when a slot frees.
      if (!this.inFlight.hasRoom(now)) break;
      // Near the end of a shared window, one at a time: each answer tells how much the others took meanwhile.
      if (rivals > 0 && left <= rivals + this.inFlight.max && this.inFlight.inFlight > 0) break;
      this.leave(head);
      if (now + this.latency.ms > head.request.deadline) {
        // Sent now, it would be aborted mid-flight at its deadline (and may be charged).
        head.reject(
          tooLateError({ waitMs: 0, reason: 'too little of its deadline is left for the request itself', requestMs: this.latency.ms }),
        );
        continue;
      }
      const windowTaken = this.window.take(now);
      this.inFlight.take();
      head.resolve(this.permit(windowTaken, head.request.free));
    }
    if (this.queue.length > 0) this.pace.queued({ expectedMs: this.latency.ms, quickestMs: this.latency.quickestMs });
    else this.pace.emptied();
    this.scheduleWake(nextWake);
    this.failLateTurns(now);
  }

  private permit(windowTaken: number, free: boolean): SendPermit {
    let released = false;
    const sentAt = this.clock.now();
    this.sentAts.push(sentAt);
    return {
      release: (outcome: PermitOutcome) => {
        if (released) return;
        released = true;
        this.inFlight.give();
        const sent = this.sentAts.indexOf(sentAt);
        if (sent >= 0) this.sentAts.splice(sent, 1);
        const now = this.clock.now();
        if (!free) this.pace.answered(sentAt, now, !heldThroughRetryWait(outcome));
        // Only an answer timed alone: a refused request keeps its slot through its retry wait.
        // Only data requests: a free one (the start-up openapi.json, large and sent while the
        // process is still loading) says nothing of a data call's time, and an estimate
        // inflated past the deadlines would refuse every call without ever being corrected.
        if (!free && outcome.status !== undefined && outcome.code === undefined) this.latency.observe(now - sentAt);
        if (outcome.code === 'IN_FLIGHT_EXCEEDED') this.window.untake(windowTaken, now);
        else if (outcome.status !== undefined) this.inFlight.answered(now);
        if (outcome.headers) {
          this.window.observe(outcome.headers, now);
          this.quota.observe(outcome.headers, now);
          const rivals = this.window.rivalsSeen();
          if (rivals > 0) this.inFlight.shareWith(rivals + 1, now);
        }
        this.pump();
      },
    };
  }

  /**
   * When the call at `position` in the queue may expect its turn, and why it waits: the
   * pause, the window (with the slots kept for the account's other processes counted as
   * ahead of it), and the calls ahead of it behind the in-flight cap, each wave of them
   * taking what a wave was seen to take (queue-pace.ts). Read `soonest`, the slots kept are
   * those of the processes certainly there and a wave takes the quickest it was shown to.
   */
  private turnOf(position: number, now: number, reading: WaitReading): Turn {
    const pausedUntil = this.pauseUntil.endsAt(now);
    const rivals = reading === 'soonest' ? this.window.rivalsForCertain() : this.window.rivals();
    const reserved = Math.min(this.inFlight.max - 1, rivals);
    // The cap as it recovers, not as an IN_FLIGHT_EXCEEDED shrank it for a moment (a
    // pessimistic estimate would refuse calls the next seconds serve in time), but at the
    // share in force: with others on the account the queue drains at the share, not at 5.
    const cap = this.inFlight.expected(now);
    const waveMs = (reading === 'soonest' ? this.pace.quickestWaveMs(this.latency.quickestMs) : this.pace.waveMs(this.latency.ms)) ?? 0;
    const windowAt = this.window.turnAt(position + reserved, now);
    // In the window it goes in, the requests before it there go out in waves of the cap.
    const byWindow =
      windowAt === undefined || windowAt <= now
        ? now
        : windowAt + Math.floor(this.window.placeInItsWindow(position + reserved, now) / cap) * waveMs;
    // Every call ahead goes out in waves of the cap, whichever windows they go in: a call
    // past the window's end is no sooner than the waves of the window's calls before it.
    const free = Math.max(0, cap - this.inFlight.inFlight);
    const waves = position < free ? 0 : Math.floor((position - free) / cap) + 1;
    // Read soonest, the wave under way has only what its oldest request has left: counted
    // whole, a wave about to end at this very instant pushed a call past its deadline.
    const oldest = this.sentAts[0];
    const underWay = reading === 'soonest' && oldest !== undefined ? Math.min(waveMs, Math.max(0, oldest + waveMs - now)) : waveMs;
    const byFlight = waves === 0 ? now : now + underWay + (waves - 1) * waveMs;
    if (pausedUntil !== undefined && pausedUntil >= Math.max(byWindow, byFlight))
      return { at: pausedUntil, reason: 'the account is paused as the API asked (Retry-After)' };
    if (byWindow > now && byWindow >= byFlight)
      return {
        at: byWindow,
        reason:
          reserved > 0
            ? "the account's request window is spent (its last slots kept for the account's other processes) until it resets"
            : "the account's request window is spent until it resets",
      };
    return {
      at: byFlight,
      reason: `${this.inFlight.inFlight} requests are in flight, the most this process sends at once, and ${position} calls are ahead`,
    };
  }

  /**
   * Wait or fail: a call whose turn would cross its deadline answers now, with the wait it
   * would have needed. Only on what is certain: its soonest turn, and then what a request
   * takes, must cross the deadline. A moment (a slow answer of a loaded machine,
   * a slot kept through a retry wait, a ratio of the others' spending at a window's start)
   * multiplied by every wave ahead refused calls the window served in time; a call that waits
   * on an uncertain turn is judged again at every answer, and refused then if it turns out
   * late, or at its turn if too little of its deadline is left for the request itself.
   */
  private failLateTurns(now: number): void {
    if (this.toldRetries.length > 0) this.toldRetries = this.toldRetries.filter((at) => at > now);
    for (let position = 0; position < this.queue.length;) {
      const waiter = this.queue[position];
      if (!waiter) break;
      const soonest = this.turnOf(position, now, 'soonest');
      // Its turn and then the request itself must fit before its deadline (at its turn, no
      // call is sent with less left than a request takes: `pump`).
      if (soonest.at + this.latency.ms <= waiter.request.deadline) {
        position += 1;
        continue;
      }
      this.leave(waiter);
      // Calls refused before it will likely come back at their told time: counting them as
      // ahead spreads the retries, so that each told wait is one its retry could meet.
      const expected = this.turnOf(position + this.toldRetries.length, now, 'expected');
      const told = expected.at >= soonest.at ? expected : soonest;
      const error = tooLateError({ waitMs: told.at - now, reason: told.reason, requestMs: this.latency.ms });
      this.toldRetries.push(now + (error.retryAfterSeconds ?? 0) * 1000);
      waiter.reject(error);
    }
  }

  private scheduleWake(at: number | undefined): void {
    if (at === undefined) {
      this.wake?.timer.cancel();
      this.wake = undefined;
      return;
    }
    if (this.wake?.at === at) return;
    this.wake?.timer.cancel();
    this.wake = { at, timer: this.clock.after(at - this.clock.now(), () => this.onWake()) };
  }

  private onWake(): void {
    this.wake = undefined;
    this.pump();
  }

  /** Takes a waiter out of the queue; false when it had already left. */
  private leave(waiter: Waiter): boolean {
    const index = this.queue.indexOf(waiter);
    if (index < 0) return false;
    this.queue.splice(index, 1);
    waiter.request.signal.removeEventListener('abort', waiter.onAbort);
    return true;
  }
}
