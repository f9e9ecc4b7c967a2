/**
 * Fair turns among the users of every node of the account, through Redis (the script and
 * its keys: shared-turns-script.ts). A node asks for a turn for the users waiting on it
 * and gets one only when one of them is among the least served of the users waiting
 * anywhere, and no other node's call is at the account gate. When a turn ends the node
 * says so and every node is woken (pub/sub) to ask again.
 *
 * Leases: a node renews its waiting users and its turn while it has them; a node that dies
 * holds nobody up for longer than the lease. Redis that does not answer (or restarts
 * empty) costs nothing but fairness across nodes: the node takes turns among its own
 * users meanwhile, as it does without Redis, and is back on Redis at its next question.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Clock, Timer } from '../api/gate/clock.js';
import { systemClock } from '../api/gate/clock.js';
import type { AccountKeys } from '../redis/keys.js';
import { Script, type RedisCommander } from '../redis/scripts.js';
import type { Logger } from '../log.js';
import { TURN_SCRIPT, turnKeys, type TurnKeys } from '../redis/shared-turns-script.js';
import { LocalTurns, type Turn, type Turns } from './turns.js';

/** What shared turns need of a Redis connection (RedisLink has it). */
export interface TurnsLink extends RedisCommander {
  subscribe(channel: string, onMessage: (message: string) => void): Promise<void>;
}

/** The account as shared on Redis: its link and its key names (src/redis/factory.ts). */
export interface SharedRedis {
  link: TurnsLink;
  keys: AccountKeys;
}

export interface SharedTurnsOptions {
  link: TurnsLink;
  keys: AccountKeys;
  /** How long a dead node's waiting users and turn hold the others up, at most. */
  leaseMs?: number;
  keyTtlMs?: number;
  clock?: Clock;
  /**
   * The instant the script sees. By default Redis TIME: one clock for every node, whatever
   * the skew between hosts. Tests pass their fake clock's.
   */
  redisNow?: () => number;
  log?: Pick<Logger, 'warn' | 'info'> | undefined;
}

const SCRIPT = new Script(TURN_SCRIPT);
type Mode = 'ask' | 'keep' | 'done';

export class SharedTurns implements Turns {
  readonly acrossNodes = true;
  private readonly node = randomUUID();
  private readonly keys: TurnKeys;
  private readonly local = new LocalTurns();
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private waiting: readonly string[] = [];
  private holding = false;
  private heartbeat: Timer | undefined;
  private wake: () => void = () => undefined;
  /** Whether the last question reached Redis: the change either way is logged once. */
  private shared = true;
  private closed = false;

  constructor(private readonly options: SharedTurnsOptions) {
    this.keys = turnKeys(options.keys);
    this.clock = options.clock ?? systemClock;
    this.leaseMs = options.leaseMs ?? 3000;
    // The link subscribes again whenever Redis comes back; meanwhile leases and the
    // heartbeat still move turns on.
    options.link.subscribe(this.keys.wake, () => this.wake()).catch(() => undefined);
  }

  onWake(wake: () => void): void {
    this.wake = wake;
  }

  async next(waiting: readonly string[]): Promise<Turn> {
    this.waiting = waiting;
    this.beat();
    try {
      const reply = await this.run('ask');
      this.reached(true);
      if (reply.granted === undefined) return { waitMs: Math.max(1, Math.min(reply.waitMs, this.leaseMs / 3)) };
      this.holding = true;
      return { user: waiting.find((user) => userTag(user) === reply.granted) ?? this.local.pick(waiting) };
    } catch (error) {
      this.reached(false, error);
      return { user: this.local.pick(waiting) };
    }
  }

  done(waiting: readonly string[]): void {
    this.waiting = waiting;
    this.holding = false;
    // Also when the turn was local: the node's entries become exact again.
    this.background('done');
  }

  waitingChanged(waiting: readonly string[]): void {
    this.waiting = waiting;
    this.background('keep');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.heartbeat?.cancel();
    this.waiting = [];
    this.holding = false;
    await this.run('done').catch(() => undefined);
  }

  /** While this node has users waiting or holds the turn, their leases are renewed. */
  private beat(): void {
    if (this.heartbeat || this.closed) return;
    this.heartbeat = this.clock.after(this.leaseMs / 3, () => {
      this.heartbeat = undefined;
      if (this.waiting.length === 0 && !this.holding) return;
      this.background('keep');
      this.beat();
    });
  }

  private background(mode: Mode): void {
    if (mode !== 'done' || this.waiting.length > 0) this.beat();
    this.run(mode).then(
      () => this.reached(true),
      (error: unknown) => this.reached(false, error),
    );
  }

  private async run(mode: Mode): Promise<{ granted?: string; waitMs: number }> {
    const now = this.options.redisNow?.();
    const reply = await SCRIPT.run(
      this.options.link,
      [this.keys.waiting, this.keys.tags, this.keys.turn],
      [
        mode,
        this.node,
        Math.round(this.leaseMs),
        this.options.keyTtlMs ?? 60 * 60_000,
        this.keys.wake,
        now === undefined ? '' : Math.round(now),
        ...this.waiting.map(userTag),
      ],
    );
    if (!Array.isArray(reply)) throw new Error('unexpected reply from the turns script');
    const [kind, value] = reply as unknown[];
    return Number(kind) === 1 ? { granted: String(value), waitMs: 0 } : { waitMs: Number(value) || 0 };
  }

  private reached(ok: boolean, error?: unknown): void {
    if (ok === this.shared || this.closed) return;
    this.shared = ok;
    if (ok) this.options.log?.info({}, "redis answers again: the account's users take turns across every node");
    else
      this.options.log?.warn(
        { redis: error instanceof Error ? error.message.slice(0, 160) : 'no answer' },
        "redis unreachable: this node's users take turns among themselves until it answers",
      );
  }
}

/** A user as Redis knows them: a hash of the subject, never the subject itself. */
function userTag(user: string): string {
  return createHash('sha256').update(`market-data-mcp/fair-share/${user}`).digest('hex').slice(0, 24);
}
