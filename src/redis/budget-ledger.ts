/**
 * The daily budget counted on Redis, shared by every node: one atomic script takes a unit
 * only while the day's count is under the limit. Each count expires a day after its day
 * ends.
 *
 * Durable across a Redis restart: each node remembers the last count Redis told it for
 * each member and day, and hands it to the script, so that a count Redis lost (it came back
 * empty) starts again from what the node knew, not from 0 (a member who had spent 3 of 3
 * got 3 more charged calls after a restart). While Redis does not answer, the node goes on
 * counting from that same count on its own (the budget then holds per node, not across
 * them) rather than refusing or waiting.
 */
import type { RedisCommander } from './scripts.js';
import type { BudgetLedger } from '../team/daily-budget.js';

/**
 * KEYS: the count. ARGV: limit, ttl ms, the count this node knows. The count after taking
 * one, or -1 when over the limit. A count missing while the node knows one (Redis came back
 * empty) starts again from the node's.
 */
const RESERVE = `
local spent = tonumber(redis.call('GET', KEYS[1]))
if spent == nil then spent = tonumber(ARGV[3]) or 0 end
if spent + 1 > tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], spent, 'PX', ARGV[2])
  return -1
end
redis.call('SET', KEYS[1], spent + 1, 'PX', ARGV[2])
return spent + 1`;

/** KEYS: the count. The count after giving one back. */
const REFUND = `
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
if spent > 0 then spent = redis.call('DECR', KEYS[1]) end
return spent`;

export class RedisBudgetLedger implements BudgetLedger {
  /** The last count this node knows for each member and day: Redis's word, or its own while Redis is away. */
  private readonly known = new Map<string, number>();
  private day: string | undefined;

  constructor(
    private readonly redis: RedisCommander,
    private readonly prefix = 'mdmcp:budget',
  ) {}

  async reserve(subject: string, day: string, limit: number, expiresInMs: number): Promise<number | undefined> {
    this.turn(day);
    const key = this.key(subject, day);
    const known = this.known.get(key) ?? 0;
    try {
      const spent = Number(await this.redis.sendCommand(['EVAL', RESERVE, '1', key, String(limit), String(expiresInMs), String(known)]));
      if (spent < 0) {
        this.known.set(key, Math.max(known, limit));
        return undefined;
      }
      this.known.set(key, spent);
      return spent;
    } catch {
      if (known + 1 > limit) return undefined;
      this.known.set(key, known + 1);
      return known + 1;
    }
  }

  async refund(subject: string, day: string): Promise<void> {
    const key = this.key(subject, day);
    // At once, not at the reply: a reserve sent meanwhile must not bring the unit back.
    const known = this.known.get(key);
    if (known !== undefined) this.known.set(key, Math.max(0, known - 1));
    try {
      this.known.set(key, Number(await this.redis.sendCommand(['EVAL', REFUND, '1', key])));
    } catch {
      // Counted down already.
    }
  }

  /** Yesterday's counts are of no use once the day turned. */
  private turn(day: string): void {
    if (day !== this.day) this.known.clear();
    this.day = day;
  }

  private key(subject: string, day: string): string {
    return `${this.prefix}:${subject}:${day}`;
  }
}
