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
import type { AccountGate, GateView, PermitOutcome, PermitRequest, SendPermit } from '../api/gate/account-gate.js';
import type { AccountKeys } from './keys.js';
import { RedisUnavailableError, type RedisLink } from './connection.js';
import { GateScripts, type GateScriptSettings } from './scripts.js';
import { expectedWaitMs, type WaitPicture } from './wait.js';
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
    const wait = expectedWaitMs(this.picture, this.queue.length + 1, this.now(), this.settings.slackMs, this.windowKnown);
    if (this.mayRefuseEarly() && this.now() + wait > request.deadline) return Promise.reject(tooLate(wait));
    return new Promise<SendPermit>((resolve, reject) => {
      const entry: Waiting = { request, resolve, reject, told: false, timer: undefined, onAbort: () => undefined };
      entry.onAbort = () => this.leave(entry, abortError(request.signal));
      request.signal.addEventListener('abort', entry.onAbort, { once: true });
      // The deadline bounds every wait, whatever the estimate said.
      entry.timer = setTimeout(() => this.leave(entry, tooLate(this.expectedFor(entry))), Math.max(0, request.deadline - this.now()));
      entry.timer.unref();
      this.queue.push(entry);
      if (wait > 0) this.tell(entry, wait);
      this.kick();
    });
  }

  pause(untilMs: number): void {
    this.background(this.scripts.pause(untilMs - this.now()));
  }

  inFlightRefused(): void {
    this.background(this.scripts.shrinkCap());
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
    // Give the leases back now rather than after their expiry.
    await Promise.all([...this.held].map((leaseId) => this.scripts.release({ leaseId, success: false }).catch(() => undefined)));
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
      const leaseId = `${this.processId}:${(this.serial += 1)}`;
      let answer: Awaited<ReturnType<GateScripts['acquire']>>;
      try {
        answer = await this.scripts.acquire(leaseId, head.request.free);
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
        this.picture = undefined;
        this.settle(head);
        head.resolve(this.permit(leaseId));
        continue;
      }
      if (answer.kind === 'quota') {
        this.settle(head);
        head.reject(quotaLatchedError(this.now() + answer.waitMs, answer.waitMs));
        continue;
      }
      this.picture = { reason: answer.reason, waitMs: answer.waitMs, window: answer.window, seenAt: this.now() };
      this.refuseThoseOutOfTime();
      for (const entry of this.queue) this.tell(entry, this.expectedFor(entry));
      this.sleepTimer = setTimeout(() => this.kick(), Math.min(answer.waitMs, MAX_SLEEP_MS));
      this.sleepTimer.unref();
      return;
    }
  }

  private permit(leaseId: string): SendPermit {
    this.held.add(leaseId);
    this.startRenewing();
    let released = false;
    return {
      release: (outcome: PermitOutcome) => {
        if (released) return;
        released = true;
        this.held.delete(leaseId);
        const now = this.now();
        const h = outcome.headers;
        const status = outcome.status;
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
   * server announced, or a window whose length was learned. A window opened here at cold
   * start (the spec's minute, from now) says neither, so then the request's deadline timer
   * bounds its wait, as in process.
   */
  private mayRefuseEarly(): boolean {
    return this.windowKnown || this.picture?.reason === 'pause' || this.picture?.window.serverAligned === true;
  }

  private expectedFor(entry: Waiting): number {
    return expectedWaitMs(this.picture, this.queue.indexOf(entry) + 1, this.now(), this.settings.slackMs, this.windowKnown);
  }

  /** Wait or fail: whoever cannot get a turn before its deadline hears so now, not at the deadline. */
  private refuseThoseOutOfTime(): void {
    if (!this.mayRefuseEarly()) return;
    const now = this.now();
    const late = this.queue
      .map((entry, index) => ({ entry, wait: expectedWaitMs(this.picture, index + 1, now, this.settings.slackMs, this.windowKnown) }))
      .filter(({ entry, wait }) => now + wait > entry.request.deadline);
    for (const { entry, wait } of late) this.leave(entry, tooLate(wait));
  }

  private tell(entry: Waiting, waitMs: number): void {
    if (entry.told || waitMs <= 0) return;
    entry.told = true;
    const reason = this.picture?.reason ?? 'window';
    entry.request.onWait?.(
      waitMs,
      reason === 'pause'
        ? 'the account is paused as the API asked (Retry-After)'
        : reason === 'slot'
          ? "the account's requests in flight are at the cap"
          : "the account's request window is spent until it resets",
    );
  }

  private leave(entry: Waiting, error: Error): void {
    const index = this.queue.indexOf(entry);
    if (index < 0) return;
    this.queue.splice(index, 1);
    this.settle(entry);
    entry.reject(error);
    // The head may have left: the next one's turn could be now.
    if (index === 0) this.kick();
  }

  private settle(entry: Waiting): void {
    const index = this.queue.indexOf(entry);
    if (index >= 0) this.queue.splice(index, 1);
    clearTimeout(entry.timer);
    entry.request.signal.removeEventListener('abort', entry.onAbort);
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

function tooLate(waitMs: number): ApiError {
  const seconds = Number.isFinite(waitMs) ? Math.max(1, Math.ceil(waitMs / 1000)) : 60;
  return new ApiError({
    code: 'RATE_LIMITED',
    status: null,
    message: `The account's requests are spent for about ${seconds} s; waiting would cross this call's deadline.`,
    hint: 'No request was sent. Retry after retry_after_seconds.',
    recoverable: true,
    retryAfterSeconds: seconds,
    local: true,
  });
}
