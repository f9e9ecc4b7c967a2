/**
 * The units the account spent today through every node, kept on Redis: each node's count
 * went with it when it died (its /metrics counter with it), so a killed node's spending was
 * accounted nowhere. Each node adds its charged answers to the day's hash (a field per
 * node); /metrics on any node shows the day's total, a dead node's units included.
 */
import { randomUUID } from 'node:crypto';
import type { RedisCommander } from '../redis/scripts.js';
import type { AccountKeys } from '../redis/keys.js';

/** Kept a little over a month: a day's total is asked for while the month's quota runs. */
const KEEP_MS = 35 * 24 * 60 * 60_000;

export class UnitsLedger {
  private readonly node = randomUUID();

  constructor(
    private readonly redis: RedisCommander,
    private readonly keys: AccountKeys,
    private readonly now: () => number = Date.now,
  ) {}

  /** One charged answer (a 200 to a data request): counted in the background; Redis away, it is lost with the node's own counter only. */
  charged(): void {
    const key = this.key();
    this.redis
      .sendCommand(['HINCRBY', key, this.node, '1'])
      .then(() => this.redis.sendCommand(['PEXPIRE', key, String(KEEP_MS)]))
      .catch(() => undefined);
  }

  /** The units every node of the account spent today (UTC). */
  async today(): Promise<number> {
    const values = await this.redis.sendCommand(['HVALS', this.key()]);
    return Array.isArray(values) ? values.reduce((sum: number, v) => sum + (Number(v) || 0), 0) : 0;
  }

  private key(): string {
    return `${this.keys.state}:units:${new Date(this.now()).toISOString().slice(0, 10)}`;
  }
}
