/**
 * Redis when it answers, this process's own gate when it does not. A request never
 * waits on a Redis that is gone (commands have a short time limit and a broken
 * connection refuses at once) and never goes out unguarded: the in-process gate takes
 * over. The account's other processes fall back at the same moment and none of them can
 * see the others' requests any more, so each keeps to its part of the account: its
 * limits divided by the processes Redis last saw alive (src/redis/members.ts), or, for a
 * process Redis has not answered yet, what src/redis/outage-part.ts decides. A probe
 * brings the process back to Redis when it answers.
 *
 * Handing over is where the gates overlap: requests granted by one gate are still in
 * flight when the other starts granting, and after Redis is back the processes still on
 * their own gates are unseen for up to a probe's interval. So a process that falls back
 * first lets the requests Redis granted it finish, and one that rejoins takes, for a
 * probe's interval, both a shared turn and one of its own part.
 */
import type { Logger } from '../log.js';
import type { AccountGate, GateView, LimitHeaders, PermitOutcome, PermitRequest, SendPermit } from '../api/gate/account-gate.js';
import { partOf } from '../api/gate/account-share.js';
import { SPEC_LIMITS } from '../catalog/index.js';
import { describe, RedisUnavailableError } from './connection.js';
import type { PartInForce } from './outage-part.js';

/** What the wrapper needs from the shared gate beyond AccountGate. */
export interface SharedGate extends AccountGate {
  ping(): Promise<void>;
  onDown(listener: (error: RedisUnavailableError) => void): void;
}

export interface ResilientGateOptions {
  /** How often to ask whether Redis is back. */
  probeMs?: number;
  log?: Pick<Logger, 'warn' | 'info'> | undefined;
  /**
   * Redis is still being connected to: start on the fallback and move to Redis when
   * `ready` resolves true (false: probe as after a failure). Nothing waits on it but the
   * calls made within `waitMs` of the gate's creation, each for at most what is left of it.
   */
  join?: { ready: Promise<boolean>; waitMs: number } | undefined;
  /** This process's part of the account while Redis is away (src/redis/outage-part.ts); without it, the fallback takes the whole account. */
  members?: { inForce(): PartInForce; close(): Promise<void> } | undefined;
  /** Local clock (tests). */
  now?: () => number;
}

/** How much longer than a probe's interval the others may take to notice Redis is back (their probe's own round trip). */
const PROBE_SLACK_MS = 500;

/** The longest a process just fallen back waits for the requests Redis granted it (most answer within a second). */
const DRAIN_WAIT_MS = 2000;

export class ResilientGate implements AccountGate {
  private mode: 'redis' | 'in-process' = 'redis';
  private reason = 'shared with every process of the account through Redis';
  private probeTimer: NodeJS.Timeout | undefined;
  private readonly probeMs: number;
  private closed = false;
  /** Set while the first connection to Redis is under way (see ResilientGateOptions.join). */
  private joining: Promise<void> | undefined;
  private joinUntil = 0;
  private joinError: unknown;
  private readonly now: () => number;
  /** Permits Redis granted this process that are still out. */
  private sharedOut = 0;
  private drainWaiters: (() => void)[] = [];
  /** Until then, after rejoining Redis, a request takes a turn of both gates. */
  private bothUntil = 0;
  /** The part of the account in force on the fallback (see ResilientGateOptions.members). */
  private part: PartInForce | undefined;
  /** The latest limit headers a fallback permit brought back: told to Redis when it answers again. */
  private lastHeard: LimitHeaders | undefined;

  constructor(
    private readonly shared: SharedGate,
    private readonly fallback: AccountGate,
    private readonly options: ResilientGateOptions = {},
  ) {
    this.probeMs = options.probeMs ?? 2000;
    this.now = options.now ?? Date.now;
    shared.onDown((error) => this.down(error));
    // Until Redis answers, the fallback keeps to the part this process can know of.
    this.sharePart();
    if (options.join) this.startJoining(options.join.ready, options.join.waitMs);
  }

  get activeMode(): 'redis' | 'in-process' {
    return this.mode;
  }

  async acquire(request: PermitRequest): Promise<SendPermit> {
    await this.joined(request.deadline);
    if (this.mode === 'redis') {
      if (this.now() < this.bothUntil) return this.acquireBoth(request);
      try {
        return this.track(await this.shared.acquire(request));
      } catch (error) {
        if (!(error instanceof RedisUnavailableError)) throw error;
        this.down(error);
      }
    }
    // What Redis granted this process is still out: its slots count until they come back.
    if (this.othersShare()) await this.sharedDrained(request);
    const permit = await this.fallback.acquire(request);
    return {
      release: (outcome: PermitOutcome) => {
        if (outcome.headers) this.lastHeard = outcome.headers;
        permit.release(outcome);
      },
    };
  }

  /** Just back on Redis: a shared turn, and one of this process's part, while the others may still be on their own gates. */
  private async acquireBoth(request: PermitRequest): Promise<SendPermit> {
    const own = await this.fallback.acquire(request);
    let shared: SendPermit;
    try {
      shared = await this.shared.acquire(request);
    } catch (error) {
      if (!(error instanceof RedisUnavailableError)) {
        own.release({});
        throw error;
      }
      this.down(error);
      return own;
    }
    return this.track({
      release: (outcome: PermitOutcome) => {
        own.release(outcome);
        shared.release(outcome);
      },
    });
  }

  private track(permit: SendPermit): SendPermit {
    this.sharedOut += 1;
    let released = false;
    return {
      release: (outcome: PermitOutcome) => {
        if (released) return;
        released = true;
        this.sharedOut -= 1;
        permit.release(outcome);
        // The fallback follows the account's window all along: if Redis goes, it knows what is spent.
        if (outcome.headers) this.fallback.heard?.(outcome.headers);
        if (this.sharedOut === 0) for (const wake of this.drainWaiters.splice(0)) wake();
      },
    };
  }

  /**
   * Resolves once no permit Redis granted is out, or at most DRAIN_WAIT_MS later (a request
   * still out by then is a long one, and holding every call behind it would cost more), or at
   * the request's deadline or abort (the fallback then decides).
   */
  private async sharedDrained(request: PermitRequest): Promise<void> {
    if (this.sharedOut === 0) return;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      this.drainWaiters.push(resolve);
      timer = setTimeout(resolve, Math.max(0, Math.min(DRAIN_WAIT_MS, request.deadline - this.now())));
      onAbort = resolve;
      request.signal.addEventListener('abort', onAbort, { once: true });
    });
    clearTimeout(timer);
    if (onAbort) request.signal.removeEventListener('abort', onAbort);
  }

  // The account-wide facts go to both: the fallback must know them the moment it takes over.
  pause(untilMs: number): void {
    if (this.mode === 'redis') this.shared.pause(untilMs);
    this.fallback.pause(untilMs);
  }

  inFlightRefused(): void {
    if (this.mode === 'redis') this.shared.inFlightRefused();
    else this.fallback.inFlightRefused();
  }

  latchQuota(resetAtMs: number): void {
    if (this.mode === 'redis') this.shared.latchQuota(resetAtMs);
    this.fallback.latchQuota(resetAtMs);
  }

  rememberDisabled(capability: string, untilMs: number): void {
    if (this.mode === 'redis') this.shared.rememberDisabled(capability, untilMs);
    this.fallback.rememberDisabled(capability, untilMs);
  }

  async disabledFor(capability: string): Promise<number | undefined> {
    await this.joined();
    if (this.mode === 'redis') {
      try {
        return await this.shared.disabledFor(capability);
      } catch (error) {
        this.down(error);
      }
    }
    return this.fallback.disabledFor(capability);
  }

  async view(): Promise<GateView> {
    await this.joined();
    if (this.mode === 'redis') {
      try {
        return { ...(await this.shared.view()), mode: 'redis', mode_reason: this.reason };
      } catch (error) {
        this.down(error);
      }
    }
    return { ...(await this.fallback.view()), mode: 'in-process', mode_reason: this.reason };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.probeTimer);
    for (const wake of this.drainWaiters.splice(0)) wake();
    // Leaves the account's members while the link is still open.
    await this.options.members?.close();
    await Promise.all([this.shared.close(), this.fallback.close()]);
  }

  private startJoining(ready: Promise<boolean>, waitMs: number): void {
    this.mode = 'in-process';
    this.reason = `connecting to Redis; until it answers this process ${this.partText()}`;
    this.joinUntil = Date.now() + waitMs;
    this.joining = ready
      .catch(() => false)
      .then((answered) => {
        this.joining = undefined;
        if (this.closed) return;
        if (!answered) {
          this.options.log?.warn({}, 'redis does not answer at start: this process uses its own account gate until it does');
          this.down(this.joinError ?? new RedisUnavailableError('no answer at start'));
          return;
        }
        // A connection error seen while connecting may have scheduled a probe: Redis answers now.
        clearTimeout(this.probeTimer);
        this.probeTimer = undefined;
        this.mode = 'redis';
        this.reason = 'shared with every process of the account through Redis';
        this.options.log?.info({}, 'redis answers: this process shares the account gate through it');
      });
  }

  /**
   * While Redis is being joined, a call made soon after start waits for it a little (to at
   * most `join.waitMs` after creation, and never past its own deadline), so that a process
   * whose Redis is up is on Redis for its first calls; later calls never wait.
   */
  private async joined(deadline = Infinity): Promise<void> {
    const joining = this.joining;
    if (!joining) return;
    const waitMs = Math.min(this.joinUntil, deadline) - Date.now();
    if (waitMs <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([joining, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  private down(error: unknown): void {
    if (this.closed) return;
    const why = describe(error);
    // While joining, the join decides (and schedules the probe if Redis never answered).
    if (this.joining) {
      this.joinError = error;
      this.reason = `connecting to Redis (${why}); until it answers this process ${this.partText()}`;
      return;
    }
    // From Redis, or from a join that never reached it: the part as now known.
    if (this.mode === 'redis' || !this.part) {
      this.sharePart();
      this.options.log?.warn(
        { redis: why, processes: this.part?.part.processes ?? 1 },
        'redis unreachable: this process falls back to its own account gate, with its part of the account',
      );
    }
    this.mode = 'in-process';
    this.reason = this.outageReason(why);
    this.scheduleProbe();
  }

  private sharePart(): void {
    this.part = this.options.members?.inForce();
    if (this.part) this.fallback.shareAccount?.(this.part.part);
  }

  /** Whether other processes share the account: then handing over between the gates needs care. */
  private othersShare(): boolean {
    return (this.part?.part.processes ?? 1) > 1;
  }

  private outageReason(why: string): string {
    return `redis unreachable (${why}); this process ${this.partText()} and asks Redis again every ${Math.ceil(this.probeMs / 1000)} s`;
  }

  private partText(): string {
    const inForce = this.part;
    return inForce && inForce.part.processes > 1
      ? `keeps to its part of the account's limits, ${partOf(SPEC_LIMITS.inFlight, inForce.part)} of ${SPEC_LIMITS.inFlight} in flight and ${partOf(SPEC_LIMITS.perWindow, inForce.part)} of ${SPEC_LIMITS.perWindow} a window (${inForce.part.processes} processes of the account, ${inForce.because})`
      : "keeps the account's limits on its own";
  }

  private scheduleProbe(): void {
    if (this.probeTimer || this.closed) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      this.shared.ping().then(
        () => {
          if (this.closed) return;
          if (this.lastHeard) this.shared.heard?.(this.lastHeard);
          this.lastHeard = undefined;
          this.mode = 'redis';
          // The others notice within their own probe's interval: until then, this process keeps to its part too.
          if (this.othersShare()) this.bothUntil = this.now() + this.probeMs + PROBE_SLACK_MS;
          this.reason = `shared with every process of the account through Redis (back since ${new Date().toISOString()})`;
          this.options.log?.info({}, 'redis answers again: this process shares the account gate through it');
        },
        (error: unknown) => {
          if (this.closed) return;
          this.reason = this.outageReason(describe(error));
          this.scheduleProbe();
        },
      );
    }, this.probeMs);
    this.probeTimer.unref();
  }
}
