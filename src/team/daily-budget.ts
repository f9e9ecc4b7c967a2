/**
 * A per-user daily budget in units (MARKET_DATA_USER_DAILY_UNITS, read in src/config/team.ts): each signed-in subject
 * may spend that many units of the account a day (UTC), so one member cannot use up the
 * month's quota for the desk. A unit is reserved when a data request is let through and
 * given back unless the answer was charged (a 200), so the count is exact under
 * concurrency and free answers (cache hits, discover, errors) never count. With Redis the
 * count is shared by every node; while Redis is unreachable, each node counts alone.
 *
 * The budget admits or refuses a whole tool call at its first charged request: a call that
 * reads several pages (or tickers) and was admitted reads them all, counting each, so the
 * day may end a call's pages over the limit. Refusing half-way would throw away rows
 * already paid for; refusing at the first request means a refused call spent nothing.
 */
import type { PermitRequest, SendPermit, AccountGate } from '../api/gate/account-gate.js';
import { GateDecorator } from '../api/gate/gate-decorator.js';
import { ApiError, apiError } from '../api/errors.js';
import { digestOf } from '../auth/caller.js';
import type { CallRecord } from '../api/call-context.js';
import { TEAM_ENV } from '../config/env-vars.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Where the day's spending is counted: per subject and UTC day. */
export interface BudgetLedger {
  /** Takes one unit if `limit` allows it: the units spent after taking it, or undefined when refused. */
  reserve(subject: string, day: string, limit: number, expiresInMs: number): Promise<number | undefined>;
  /** Gives back a unit reserved for a request that was not charged. */
  refund(subject: string, day: string): Promise<void>;
}

export class InProcessLedger implements BudgetLedger {
  private readonly spent = new Map<string, number>();
  private day: string | undefined;

  reserve(subject: string, day: string, limit: number): Promise<number | undefined> {
    // Yesterday's counts are of no use once the day turned.
    if (day !== this.day) this.spent.clear();
    this.day = day;
    const after = (this.spent.get(subject) ?? 0) + 1;
    if (after > limit) return Promise.resolve(undefined);
    this.spent.set(subject, after);
    return Promise.resolve(after);
  }

  refund(subject: string, day: string): Promise<void> {
    const spent = this.spent.get(subject);
    if (day === this.day && spent !== undefined) this.spent.set(subject, Math.max(0, spent - 1));
    return Promise.resolve();
  }
}

export interface BudgetGateOptions {
  units: number;
  /** Asked at each call: the team server moves the count to Redis once it knows the Redis URL. */
  ledger: () => BudgetLedger;
  now?: () => number;
}

/** The subject's budget, checked before the account's gate: a refused call waits for nothing. */
export class BudgetGate extends GateDecorator {
  private readonly now: () => number;

  constructor(
    inner: AccountGate,
    private readonly options: BudgetGateOptions,
  ) {
    super(inner);
    this.now = options.now ?? Date.now;
  }

  override async acquire(request: PermitRequest): Promise<SendPermit> {
    const subject = request.call?.caller?.subject;
    if (request.free || subject === undefined) return this.inner.acquire(request);
    const now = this.now();
    const day = new Date(now).toISOString().slice(0, 10);
    const resetAt = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
    const { units } = this.options;
    const ledger = this.options.ledger();
    // The ledger names the subject by a hash: Redis key names carry no one's identity.
    const who = digestOf(`subject:${subject}`);
    const expiresInMs = resetAt - now + DAY_MS;
    if (!(await this.admit(ledger, who, day, expiresInMs, request.call?.record))) throw budgetSpent(units, resetAt, now);
    let permit: SendPermit;
    try {
      permit = await this.inner.acquire(request);
    } catch (error) {
      await ledger.refund(who, day);
      throw error;
    }
    let released = false;
    return {
      release: (outcome) => {
        if (!released && outcome.status !== 200) void ledger.refund(who, day);
        released = true;
        permit.release(outcome);
      },
    };
  }

  /**
   * Takes this request's unit. The call's first charged request decides for the whole call
   * (its other requests, even those sent at once, wait for that decision); once admitted,
   * the call's later units are counted without a limit. Outside a tool call (no record),
   * each request is decided alone.
   */
  private async admit(
    ledger: BudgetLedger,
    who: string,
    day: string,
    expiresInMs: number,
    record: CallRecord | undefined,
  ): Promise<boolean> {
    const { units } = this.options;
    if (!record) return (await ledger.reserve(who, day, units, expiresInMs)) !== undefined;
    if (!record.budgetAdmission) {
      record.budgetAdmission = ledger.reserve(who, day, units, expiresInMs).then((spent) => spent !== undefined);
      return record.budgetAdmission;
    }
    if (!(await record.budgetAdmission)) return false;
    return (await ledger.reserve(who, day, Number.MAX_SAFE_INTEGER, expiresInMs)) !== undefined;
  }
}

function budgetSpent(units: number, resetAtMs: number, now: number): ApiError {
  const resetAt = new Date(resetAtMs).toISOString();
  // Acts as the account's quota does: not retried, recoverable after the reset.
  return apiError('QUOTA_EXHAUSTED', {
    code: 'USER_BUDGET_EXHAUSTED',
    message: `Your daily budget of ${units} units on this server is spent; it resets at ${resetAt} (midnight UTC).`,
    hint: `This call was refused at its first charged request and spent no units. Cached answers and api_status stay free; calls resume after ${resetAt}, or ask the operator to raise ${TEAM_ENV.dailyUnits}.`,
    retryAfterSeconds: Math.max(1, Math.ceil((resetAtMs - now) / 1000)),
    local: true,
  });
}
