/**
 * The account gate shared on Redis: every process of the account takes its turn from one
 * rate window (aligned to the server's X-RateLimit-Reset), one set of in-flight leases,
 * one Retry-After pause, one quota latch and one memory of disabled capabilities.
 *
 * Each process keeps one FIFO queue and one pump. The pump asks Redis for the head's
 * turn; when told to wait, it sleeps until the instant Redis named or until another
 * process frees a slot or moves the window (pub/sub), never polling in a loop. A lease
 * is renewed while its request runs, so a process that dies gives its slots back within
 * the lease time.
 */
import { randomUUID } from 'node:crypto';
import { abortError, ApiError, cancelledError, quotaLatchedError } from '../api/errors.js';
import type { AccountGate, GateView, LimitHeaders, PermitOutcome, PermitRequest, SendPermit } from '../api/gate/account-gate.js';
import type { AccountKeys } from './keys.js';
import { RedisUnavailableError, type RedisLink } from './connection.js';
import { GateScripts, type GateScriptSettings, type GateSnapshot } from './scripts.js';
import { ExpectedLatency } from '../api/gate/latency.js';
import { tooLateError } from '../api/gate/too-late.js';
import { heldThroughRetryWait, QueuePace, type WaitReading } from '../api/gate/queue-pace.js';
import { expectedWait, type ExpectedWait, type WaitPicture } from './wait.js';
import { SPEC_LIMITS } from '../catalog/index.js';

export interface RedisGateOptions {
  link: RedisLink;
  keys: AccountKeys;
  /** Requests in flight per account (spec: 5). */
  maxInFlight?: number;
  /** Requests per window until the server says otherwise (spec: 60). */
  perWindow?: number;
  /** Length of the window opened when the server sends no headers (spec: one minute). */
  windowMs?: number;
  /** A crashed process's slots come back after this long; live ones renew at a third of it. */
  leaseMs?: number;
  /** Margin after the server's reset instant before sending again. */
  slackMs?: number;
  /** Local clock, for deadlines and waits (Redis keeps the shared one). */
  now?: () => number;
  /** Close the link with the gate (false when the link is shared, e.g. with the cache tier). */
  closeLink?: boolean;
}

interface Waiting {
  request: PermitRequest;
  resolve: (permit: SendPermit) => void;
  reject: (error: Error) => void;
  told: boolean;
  timer: NodeJS.Timeout | undefined;
  onAbort: () => void;
}

/** The longest the pump sleeps without news: a lost pub/sub message costs at most this. */
const MAX_SLEEP_MS = 2000;

export class RedisAccountGate implements AccountGate {
  private readonly scripts: GateScripts;
  private readonly settings: GateScriptSettings;
  private readonly now: () => number;
  private readonly processId = randomUUID();
  private readonly queue: Waiting[] = [];
  private readonly held = new Set<string>();
  private serial = 0;
  private pumping = false;
  private again = false;
  private sleepTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private picture: WaitPicture | undefined;
  private readonly latency = new ExpectedLatency();
  /** How fast this process's queue gets its turns (src/api/gate/queue-pace.ts). */
  private readonly pace = new QueuePace();
  /** The least the server's window can be, from the longest wait to a reset it named (see WaitContext). */
  private windowAtLeastMs = 0;
  /**
   * The server's window length is known once this process has seen its reset instant
   * move on (two windows). Before that the default length (the spec's minute) may be far
   * off, so a queued request is refused early only for the wait to the next reset, as the
   * in-process gate does.
   */
  private firstServerReset: number | undefined;
  private windowKnown = false;
  private unavailable: RedisUnavailableError | undefined;
  private closed = false;
  private readonly downListeners = new Set<(error: RedisUnavailableError) => void>();

  constructor(private readonly options: RedisGateOptions) {
    this.now = options.now ?? Date.now;
    this.settings = {
      maxInFlight: options.maxInFlight ?? SPEC_LIMITS.inFlight,
      perWindow: options.perWindow ?? SPEC_LIMITS.perWindow,
      windowMs: options.windowMs ?? SPEC_LIMITS.windowMs,
      leaseMs: options.leaseMs ?? 10_000,
      slackMs: options.slackMs ?? 50,
      keyTtlMs: 60 * 60_000,
    };
    this.scripts = new GateScripts(options.link, options.keys, this.settings);
    options.link.onTrouble((error) => this.markDown(error));
    options.link.subscribe(options.keys.wake, () => this.kick()).catch((error: unknown) => this.markDown(error));
  }

  get maxInFlight(): number {
    return this.settings.maxInFlight;
  }

  /** Told when Redis stops answering; every queued request has been refused with RedisUnavailableError. */
  onDown(listener: (error: RedisUnavailableError) => void): void {
    this.downListeners.add(listener);
  }

  /** Resolves when Redis answers again (the probe of a fallback wrapper). */
  async ping(): Promise<void> {
    await this.options.link.ping();
    this.unavailable = undefined;
  }

  /**
   * Rejects with RedisUnavailableError (not an ApiError) when Redis does not answer: the
   * caller (ResilientGate) then asks its in-process fallback instead.
   */
  acquire(request: PermitRequest): Promise<SendPermit> {
    if (this.closed) return Promise.reject(new RedisUnavailableError('closed'));
    if (this.unavailable) return Promise.reject(this.unavailable);
    if (request.signal.aborted) return Promise.reject(abortError(request.signal));
    const wait = this.estimate(this.queue.length + 1, this.now(), 'expected');
    if (this.outOfTime(this.queue.length + 1, request.deadline, this.now())) return Promise.reject(this.tooLateAt(this.queue.length + 1));
    return new Promise<SendPermit>((resolve, reject) => {
      const entry: Waiting = { request, resolve, reject, told: false, timer: undefined, onAbort: () => undefined };
      entry.onAbort = () => this.leave(entry, abortError(request.signal));
      request.signal.addEventListener('abort', entry.onAbort, { once: true });
      // The deadline bounds every wait, whatever the estimate said.
      entry.timer = setTimeout(
        () => this.leave(entry, this.tooLateAt(this.queue.indexOf(entry) + 1)),
        Math.max(0, request.deadline - this.now()),
      );
      entry.timer.unref();
      this.queue.push(entry);
      this.pace.queued({ expectedMs: this.latency.ms, quickestMs: this.latency.quickestMs });
      if (wait.ms > 0) this.tell(entry, wait);
      this.kick();
    });
  }

  pause(untilMs: number): void {
    this.background(this.scripts.pause(untilMs - this.now()));
  }

  inFlightRefused(): void {
    this.background(this.scripts.shrinkCap());
  }

  /** What the fallback heard while Redis was away: a Redis that restarted empty would take the window as unspent. */
  heard(h: LimitHeaders): void {
    const now = this.now();
    this.background(
      this.scripts.release({
        leaseId: `${this.processId}:heard`,
        limit: h.rateLimit,
        remaining: h.rateRemaining,
        resetInMs: h.rateResetAt === undefined ? undefined : h.rateResetAt - now,
        quotaLimit: h.quotaLimit,
        quotaRemaining: h.quotaRemaining,
        quotaResetInMs: h.quotaResetAt === undefined ? undefined : h.quotaResetAt - now,
        success: false,
      }),
    );
  }

  latchQuota(resetAtMs: number): void {
    this.background(this.scripts.latchQuota(resetAtMs - this.now()));
  }

  rememberDisabled(capability: string, untilMs: number): void {
    this.background(this.scripts.rememberDisabled(capability, untilMs - this.now()));
  }

  async disabledFor(capability: string): Promise<number | undefined> {
    const left = await this.scripts.disabledFor(capability);
    return left === undefined ? undefined : Math.ceil(left / 1000);
  }

  async view(): Promise<GateView> {
    const shared = await this.scripts.view();
    const at = (inMs: number | undefined): string | null => (inMs === undefined ? null : new Date(this.now() + inMs).toISOString());
    const limit = shared.limit ?? this.settings.perWindow;
    const windowOpen = shared.resetInMs !== undefined && shared.resetInMs > 0;
    return {
      mode: 'redis',
      mode_reason: 'shared with every process of the account through Redis',
      rate_limit_per_window: limit,
      rate_remaining: windowOpen ? Math.max(0, limit - (shared.used ?? 0)) : null,
      rate_window_resets_at: windowOpen ? at(shared.resetInMs) : null,
      paused_until: shared.pausedForMs > 0 ? at(shared.pausedForMs) : null,
      in_flight: shared.inFlight,
      queued: this.queue.length,
      max_in_flight: Math.min(this.settings.maxInFlight, Math.floor(shared.cap ?? this.settings.maxInFlight)),
      quota_limit: shared.quotaLimit ?? null,
      quota_remaining: shared.quotaLatchedForMs > 0 ? 0 : (shared.quotaRemaining ?? null),
      quota_resets_at: at(shared.quotaResetInMs),
      quota_exhausted: shared.quotaLatchedForMs > 0,
      disabled: shared.disabled,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.sleepTimer);
    clearInterval(this.renewTimer);
    for (const entry of [...this.queue]) {
      this.leave(entry, cancelledError('shutdown'));
    }
    // Give the leases back now rather than after their expiry, and stop counting as queued.
    await Promise.all([
      ...[...this.held].map((leaseId) => this.scripts.release({ leaseId, success: false }).catch(() => undefined)),
      this.unavailable ? Promise.resolve() : this.scripts.setQueued(this.processId, 0).catch(() => undefined),
    ]);
    this.held.clear();
    if (this.options.closeLink) await this.options.link.close();
  }

  private kick(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    void this.pump();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    clearTimeout(this.sleepTimer);
    try {
      do {
        this.again = false;
        await this.drain();
      } while (this.again && !this.closed && this.unavailable === undefined);
    } finally {
      this.pumping = false;
    }
  }

  /** Hands out turns from the head of the queue until Redis says to wait. */
  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.closed && this.unavailable === undefined) {
      const head = this.queue[0];
      if (!head) return;
      if (this.now() + this.latency.ms > head.request.deadline) {
        // Sent now, it would be aborted mid-flight at its deadline (and may be charged).
        this.leave(head, tooLate({ ms: 0, reason: 'none' }, this.latency.ms));
        continue;
      }
      const leaseId = `${this.processId}:${(this.serial += 1)}`;
      let answer: Awaited<ReturnType<GateScripts['acquire']>>;
      try {
        answer = await this.scripts.acquire(leaseId, head.request.free, this.processId, this.queue.length);
      } catch (error) {
        this.markDown(error);
        return;
      }
      if (this.queue[0] !== head) {
        // The head left (cancelled, out of time) while Redis answered: give its turn back.
        if (answer.kind === 'granted') this.background(this.scripts.release({ leaseId, success: false }));
        continue;
      }
      if (answer.kind === 'granted') {
        this.see(answer.snapshot);
        this.picture = { reason: 'none', waitMs: 0, window: answer.snapshot, seenAt: this.now() };
        this.settle(head);
        head.resolve(this.permit(leaseId, head.request.free));
        continue;
      }
      if (answer.kind === 'quota') {
        this.settle(head);
        head.reject(quotaLatchedError(this.now() + answer.waitMs, answer.waitMs));
        continue;
      }
      this.see(answer.snapshot);
      this.picture = { reason: answer.reason, waitMs: answer.waitMs, window: answer.snapshot, seenAt: this.now() };
      this.refuseThoseOutOfTime();
      for (const entry of this.queue) this.tell(entry, this.expectedFor(entry));
      this.sleepTimer = setTimeout(() => this.kick(), Math.min(answer.waitMs, MAX_SLEEP_MS));
      this.sleepTimer.unref();
      return;
    }
  }

  private permit(leaseId: string, free: boolean): SendPermit {
    this.held.add(leaseId);
    this.startRenewing();
    let released = false;
    const sentAt = this.now();
    return {
      release: (outcome: PermitOutcome) => {
        if (released) return;
        released = true;
        this.held.delete(leaseId);
        const now = this.now();
        if (!free) this.pace.answered(sentAt, now, !heldThroughRetryWait(outcome));
        // Only an answer timed alone: a refused request keeps its slot through its retry wait.
        // Only data requests: a free one (the start-up openapi.json, large and sent while the
        // process is still loading) says nothing of a data call's time, and an estimate
        // inflated past the deadlines would refuse every call without ever being corrected.
        if (!free && outcome.status !== undefined && outcome.code === undefined) this.latency.observe(now - sentAt);
        const h = outcome.headers;
        const status = outcome.status;
        if (h?.rateResetAt !== undefined) this.heardReset(h.rateResetAt - now);
        if (h?.rateResetAt !== undefined && !this.windowKnown) {
          this.firstServerReset ??= h.rateResetAt;
          if (h.rateResetAt > this.firstServerReset + 1000) this.windowKnown = true;
        }
        this.background(
          this.scripts.release({
            leaseId,
            limit: h?.rateLimit,
            remaining: h?.rateRemaining,
            resetInMs: h?.rateResetAt === undefined ? undefined : h.rateResetAt - now,
            quotaLimit: h?.quotaLimit,
            quotaRemaining: h?.quotaRemaining,
            quotaResetInMs: h?.quotaResetAt === undefined ? undefined : h.quotaResetAt - now,
            success: status !== undefined && status >= 200 && status < 300,
          }),
        );
      },
    };
  }

  private startRenewing(): void {
    if (this.renewTimer) return;
    this.renewTimer = setInterval(
      () => {
        if (this.held.size === 0) {
          clearInterval(this.renewTimer);
          this.renewTimer = undefined;
          return;
        }
        this.background(this.scripts.renew([...this.held]));
      },
      Math.max(50, Math.floor(this.settings.leaseMs / 3)),
    );
    this.renewTimer.unref();
  }

  /**
   * Early refusals rest on knowing when turns come: a Retry-After pause, a reset the
   * server announced, a window whose length was learned, or the waves behind the
   * in-flight leases at the quickest a request was shown to take. A window opened here at
   * cold start (the spec's minute, from now) says none of that, so then the request's
   * deadline timer bounds its wait, as in process.
   */
  private outOfTime(position: number, deadline: number, now: number): boolean {
    const wait = this.estimate(position, now, 'soonest');
    // At its turn, no call is sent with less left than a request takes (`drain`).
    if (now + wait.ms + this.latency.ms <= deadline) return false;
    if (wait.reason !== 'window') return true;
    return this.lengthKnown() || this.picture?.window.serverAligned === true;
  }

  /** The refusal of the call at `position`, with the wait it is told: the expected one, never less than the soonest. */
  private tooLateAt(position: number): ApiError {
    const now = this.now();
    const expected = this.estimate(position, now, 'expected');
    const soonest = this.estimate(position, now, 'soonest');
    return tooLate(expected.ms >= soonest.ms ? expected : soonest, this.latency.ms);
  }

  private lengthKnown(): boolean {
    return this.windowKnown || this.picture?.window.lengthLearned === true;
  }

  /**
   * The wait of the call at `position` (1 = the next to go). Read `expected`, the best
   * estimate, it is what a call is told; read `soonest`, each uncertain part as favourably
   * as what was seen allows, it is what a refusal rests on: a wave takes the quickest a
   * request was shown to take, not an average a moment inflated, and the leases count at
   * the account's cap, which an IN_FLIGHT_EXCEEDED halved only for the answers that follow
   * to grow back (scripts.ts), not at 1 for every wave ahead.
   */
  private estimate(position: number, now: number, reading: WaitReading): ExpectedWait {
    const soonest = reading === 'soonest';
    const picture =
      soonest && this.picture ? { ...this.picture, window: { ...this.picture.window, cap: this.settings.maxInFlight } } : this.picture;
    return expectedWait(picture, position, now, {
      slackMs: this.settings.slackMs,
      windowKnown: this.lengthKnown(),
      windowAtLeastMs: this.windowAtLeastMs,
      waveMs: (soonest ? this.pace.quickestWaveMs(this.latency.quickestMs) : this.pace.waveMs(this.latency.ms)) ?? 0,
    });
  }

  /** What an acquire showed of the account's window: a reset the server named bounds its length from below. */
  private see(snapshot: GateSnapshot): void {
    if (snapshot.serverAligned) this.heardReset(snapshot.resetInMs);
  }

  /** A window is at least as long as the wait to its end seen from inside it, less the second a reset in whole seconds may round up. */
  private heardReset(resetInMs: number): void {
    this.windowAtLeastMs = Math.max(this.windowAtLeastMs, resetInMs - 1000);
  }

  private expectedFor(entry: Waiting): ExpectedWait {
    return this.estimate(this.queue.indexOf(entry) + 1, this.now(), 'expected');
  }

  /** Wait or fail: whoever cannot be answered before its deadline hears so now, not at the deadline. */
  private refuseThoseOutOfTime(): void {
    const now = this.now();
    const late = this.queue
      .map((entry, index) => ({ entry, position: index + 1 }))
      .filter(({ entry, position }) => this.outOfTime(position, entry.request.deadline, now))
      .map(({ entry, position }) => ({ entry, error: this.tooLateAt(position) }));
    for (const { entry, error } of late) this.leave(entry, error);
  }

  private tell(entry: Waiting, wait: ExpectedWait): void {
    if (entry.told || wait.ms <= 0) return;
    entry.told = true;
    entry.request.onWait?.(wait.ms, describeWait(wait.reason));
  }

  private leave(entry: Waiting, error: Error): void {
    const index = this.queue.indexOf(entry);
    if (index < 0) return;
    this.queue.splice(index, 1);
    this.settle(entry);
    entry.reject(error);
    // The others stop counting a queue that emptied without asking for a turn.
    if (this.queue.length === 0 && !this.closed && this.unavailable === undefined)
      this.background(this.scripts.setQueued(this.processId, 0));
    // The head may have left: the next one's turn could be now.
    if (index === 0) this.kick();
  }

  private settle(entry: Waiting): void {
    const index = this.queue.indexOf(entry);
    if (index >= 0) this.queue.splice(index, 1);
    clearTimeout(entry.timer);
    entry.request.signal.removeEventListener('abort', entry.onAbort);
    if (this.queue.length === 0) this.pace.emptied();
  }

  private markDown(error: unknown): void {
    if (this.closed) return;
    const down = error instanceof RedisUnavailableError ? error : new RedisUnavailableError(error);
    const first = this.unavailable === undefined;
    this.unavailable = down;
    clearTimeout(this.sleepTimer);
    for (const entry of [...this.queue]) {
      this.settle(entry);
      entry.reject(down);
    }
    if (first) for (const listener of this.downListeners) listener(down);
  }

  /** Shared-state updates the caller does not wait for; a failure means Redis is away. */
  private background(work: Promise<unknown>): void {
    work.catch((error: unknown) => this.markDown(error));
  }
}

function describeWait(reason: ExpectedWait['reason']): string {
  if (reason === 'pause') return 'the account is paused as the API asked (Retry-After)';
  if (reason === 'slot') return "the account's requests in flight are at the cap, with others queued ahead";
  if (reason === 'window') return "the account's request window is spent until it resets";
  return 'too little of its deadline is left for the request itself';
}

/** Wait or fail: the answer of a call that could not be answered before its deadline; nothing was sent. */
function tooLate(wait: ExpectedWait, expectedMs: number): ApiError {
  return tooLateError({ waitMs: wait.ms, reason: describeWait(wait.reason), requestMs: expectedMs });
}
