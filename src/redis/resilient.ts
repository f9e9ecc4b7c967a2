/**
 * Redis when it answers, this process's own gate when it does not. A request never
 * waits on a Redis that is gone (commands have a short time limit and a broken
 * connection refuses at once) and never goes out unguarded: the in-process gate takes
 * over with the same limits. A probe brings the process back to Redis when it answers.
 */
import type { Logger } from '../log.js';
import type { AccountGate, GateView, PermitRequest, SendPermit } from '../api/gate/account-gate.js';
import { describe, RedisUnavailableError } from './connection.js';

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
}

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

  constructor(
    private readonly shared: SharedGate,
    private readonly fallback: AccountGate,
    private readonly options: ResilientGateOptions = {},
  ) {
    this.probeMs = options.probeMs ?? 2000;
    shared.onDown((error) => this.down(error));
    if (options.join) this.startJoining(options.join.ready, options.join.waitMs);
  }

  get activeMode(): 'redis' | 'in-process' {
    return this.mode;
  }

  async acquire(request: PermitRequest): Promise<SendPermit> {
    await this.joined(request.deadline);
    if (this.mode === 'redis') {
      try {
        return await this.shared.acquire(request);
      } catch (error) {
        if (!(error instanceof RedisUnavailableError)) throw error;
        this.down(error);
      }
    }
    return this.fallback.acquire(request);
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
    await Promise.all([this.shared.close(), this.fallback.close()]);
  }

  private startJoining(ready: Promise<boolean>, waitMs: number): void {
    this.mode = 'in-process';
    this.reason = 'connecting to Redis; until it answers this process keeps its own limits';
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
      this.reason = `connecting to Redis (${why}); until it answers this process keeps its own limits`;
      return;
    }
    if (this.mode === 'redis') {
      this.options.log?.warn({ redis: why }, 'redis unreachable: this process falls back to its own account gate');
    }
    this.mode = 'in-process';
    this.reason = `redis unreachable (${why}); this process keeps its own limits and asks Redis again every ${Math.ceil(this.probeMs / 1000)} s`;
    this.scheduleProbe();
  }

  private scheduleProbe(): void {
    if (this.probeTimer || this.closed) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      this.shared.ping().then(
        () => {
          if (this.closed) return;
          this.mode = 'redis';
          this.reason = `shared with every process of the account through Redis (back since ${new Date().toISOString()})`;
          this.options.log?.info({}, 'redis answers again: this process shares the account gate through it');
        },
        (error: unknown) => {
          if (this.closed) return;
          this.reason = `redis unreachable (${describe(error)}); this process keeps its own limits and asks Redis again every ${Math.ceil(this.probeMs / 1000)} s`;
          this.scheduleProbe();
        },
      );
    }, this.probeMs);
    this.probeTimer.unref();
  }
}
