/**
 * Redis when it answers, this process's own gate when it does not. A request never
 * waits on a Redis that is gone (commands have a short time limit and a broken
 * connection refuses at once) and never goes out unguarded: the in-process gate takes
 * over with the same limits. A probe brings the process back to Redis when it answers.
 */
import type { Logger } from '../../log.js';
import type { AccountGate, GateView, PermitRequest, SendPermit } from './account-gate.js';
import { describe, RedisUnavailableError } from './redis-connection.js';

/** What the wrapper needs from the shared gate beyond AccountGate. */
export interface SharedGate extends AccountGate {
  ping(): Promise<void>;
  onDown(listener: (error: RedisUnavailableError) => void): void;
}

export interface ResilientGateOptions {
  /** How often to ask whether Redis is back. */
  probeMs?: number;
  log?: Pick<Logger, 'warn' | 'info'> | undefined;
  /** Start in fallback until the first probe succeeds (Redis may not be up yet at start). */
  startDown?: boolean;
}

export class ResilientGate implements AccountGate {
  private mode: 'redis' | 'in-process' = 'redis';
  private reason = 'shared with every process of the account through Redis';
  private probeTimer: NodeJS.Timeout | undefined;
  private readonly probeMs: number;
  private closed = false;

  constructor(
    private readonly shared: SharedGate,
    private readonly fallback: AccountGate,
    private readonly options: ResilientGateOptions = {},
  ) {
    this.probeMs = options.probeMs ?? 2000;
    shared.onDown((error) => this.down(error));
    if (options.startDown) this.down(new RedisUnavailableError('not connected yet'));
  }

  get activeMode(): 'redis' | 'in-process' {
    return this.mode;
  }

  async acquire(request: PermitRequest): Promise<SendPermit> {
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

  private down(error: unknown): void {
    if (this.closed) return;
    const why = describe(error);
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
