/**
 * The processes of an account, as Redis last saw them alive. Each process that shares the
 * account's gate beats every second into one sorted set (member: a random id; score: when
 * its beat runs out, in Redis time), and reads back how many beats are alive. While Redis
 * is away, that count is what the process still knows about the others: its fallback gate
 * then spends only its part of the account (src/redis/resilient.ts), so that together the
 * processes stay within the account's limits instead of each assuming it is alone.
 */
import { randomUUID } from 'node:crypto';
import { systemClock, type Clock, type Timer } from '../api/gate/clock.js';
import type { AccountPart } from '../api/gate/account-share.js';
import type { AccountKeys } from './keys.js';
import { Script, type RedisCommander } from './scripts.js';

/** KEYS: members. ARGV: member id, beat lifetime ms, now ('' for Redis TIME; tests pass their clock). Returns the live members' ids. */
const BEAT = new Script(`local now
if ARGV[3] ~= '' then now = tonumber(ARGV[3]) else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], ttl * 2)
return redis.call('ZRANGE', KEYS[1], 0, -1)`);

/** The system clock whose timers do not keep the process alive: beats are background work. */
const backgroundClock: Clock = {
  now: () => systemClock.now(),
  after(ms, run) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};

export function membersKey(keys: AccountKeys): string {
  // Under the account's hash tag, beside its gate's state (one slot on Redis Cluster).
  return `${keys.state}:members`;
}

export interface AccountMembersOptions {
  redis: RedisCommander;
  keys: AccountKeys;
  /** Between beats (default 1 s). */
  beatMs?: number;
  /** A beat counts as alive this long (default 5 s): a process that died stops counting after it. */
  aliveMs?: number;
  clock?: Clock;
  /** Tests pass their clock to the script; by default Redis TIME, one clock for every host. */
  redisNow?: () => number;
  /** Told each count Redis gives that differs from the last one told (the node's state directory keeps it: src/redis/members-record.ts). */
  onCount?: (processes: number) => void;
}

/** One read of the account's members: how many, and this process's place in their sorted ids. */
interface Seen {
  at: number;
  count: number;
  rank: number | undefined;
}

export class AccountMembers {
  readonly id = randomUUID();
  private readonly beatMs: number;
  private readonly aliveMs: number;
  private readonly clock: Clock;
  private timer: Timer | undefined;
  private closed = false;
  /** Reads in the last `aliveMs`, newest last. */
  private seen: Seen[] = [];
  private told: number | undefined;
  /** The beat Redis has not answered yet: `close` waits for it, or its ZADD could land after the ZREM. */
  private pending: Promise<unknown> | undefined;

  constructor(private readonly options: AccountMembersOptions) {
    this.beatMs = options.beatMs ?? 1000;
    this.aliveMs = options.aliveMs ?? 5000;
    this.clock = options.clock ?? backgroundClock;
  }

  /** Beats now and then every `beatMs`; a beat Redis does not answer is skipped (the gate notices Redis away on its own). */
  start(): void {
    if (this.timer || this.closed) return;
    void this.beat();
  }

  /**
   * How many processes share the account, this one included (at least 1): the most any
   * beat read within `aliveMs` of the latest one. A Redis that has just restarted has not heard every
   * process's beat yet, and a process that died still counts until its beat runs out, so
   * the highest recent count errs on the side of the account's limits.
   */
  count(): number {
    return this.part()?.processes ?? 1;
  }

  /**
   * This process's part of the account as Redis last said (see `count`), with its rank in
   * the sorted ids of that read (the remainder of the limits goes by rank:
   * src/api/gate/account-share.ts); undefined while Redis has never answered a beat.
   */
  part(): AccountPart | undefined {
    // Measured from the latest beat, not from now: while Redis is away the count holds.
    const since = (this.seen.at(-1)?.at ?? 0) - this.aliveMs;
    let most: Seen | undefined;
    for (const s of this.seen) if (s.at >= since && (!most || s.count >= most.count)) most = s;
    return most ? { processes: most.count, rank: most.rank } : undefined;
  }

  /** One beat; resolves with the live count read, or undefined when Redis did not answer. */
  async beat(): Promise<number | undefined> {
    this.timer?.cancel();
    this.timer = undefined;
    let count: number | undefined;
    try {
      const sent = BEAT.run(
        this.options.redis,
        [membersKey(this.options.keys)],
        [this.id, this.aliveMs, this.options.redisNow ? String(this.options.redisNow()) : ''],
      );
      this.pending = sent;
      const reply = await sent;
      const ids = Array.isArray(reply) ? reply.map(String).sort() : [];
      if (ids.length > 0) {
        count = ids.length;
        const rank = ids.indexOf(this.id);
        this.remember(count, rank >= 0 ? rank : undefined);
        if (count !== this.told) {
          this.told = count;
          this.options.onCount?.(count);
        }
      }
    } catch {
      count = undefined;
      // Redis is away: what it said last still holds, and keeps holding for a while after it
      // is back (a Redis that restarted empty hears every process's beat only within a second).
      const held = this.part();
      if (held) this.remember(held.processes, held.rank);
    }
    if (!this.closed && !this.timer) this.timer = this.clock.after(this.beatMs, () => void this.beat());
    return count;
  }

  /** Stops beating and leaves the set, so the others stop counting this process at once. */
  async close(): Promise<void> {
    this.closed = true;
    this.timer?.cancel();
    this.timer = undefined;
    // A beat still on its way would add this process back after it left, for a beat's life.
    await this.pending?.catch(() => undefined);
    await this.options.redis.sendCommand(['ZREM', membersKey(this.options.keys), this.id]).catch(() => undefined);
  }

  private remember(count: number, rank: number | undefined): void {
    const now = this.clock.now();
    this.seen = [...this.seen.filter((s) => s.at >= now - this.aliveMs), { at: now, count, rank }];
  }
}
