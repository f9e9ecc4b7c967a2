/**
 * The daily budget counted on Redis, shared by every node: one atomic script takes a unit
 * only while the day's count is under the limit. Each count expires a day after its day
 * ends. While Redis does not answer, the node counts in process (the budget then holds
 * per node, not across them) rather than refusing or waiting.
 */
import type { RedisCommander } from '../redis/scripts.js';
import { InProcessLedger, type BudgetLedger } from './daily-budget.js';

const RESERVE = `
local spent = redis.call('INCR', KEYS[1])
if spent == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if spent > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return -1
end
return spent`;

const REFUND = `
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
if spent > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

export class RedisBudgetLedger implements BudgetLedger {
  private readonly local = new InProcessLedger();

  constructor(
    private readonly redis: RedisCommander,
    private readonly prefix = 'mdmcp:budget',
  ) {}

  async reserve(subject: string, day: string, limit: number, expiresInMs: number): Promise<number | undefined> {
    try {
      const spent = Number(
        await this.redis.sendCommand(['EVAL', RESERVE, '1', this.key(subject, day), String(limit), String(expiresInMs)]),
      );
      return spent < 0 ? undefined : spent;
    } catch {
      return this.local.reserve(subject, day, limit);
    }
  }

  async refund(subject: string, day: string): Promise<void> {
    try {
      await this.redis.sendCommand(['EVAL', REFUND, '1', this.key(subject, day)]);
    } catch {
      await this.local.refund(subject, day);
    }
  }

  private key(subject: string, day: string): string {
    return `${this.prefix}:${subject}:${day}`;
  }
}
