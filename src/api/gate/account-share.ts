/**
 * A process's part of the account's limits while the account's processes cannot see each
 * other's requests (their shared gate on Redis is away). The limits divide evenly, and what
 * does not divide (5 in flight among 3: 2 left over) goes one each to the lowest ranks of
 * Redis's sorted member list, so that the parts of the processes Redis listed add up to
 * exactly the account's limit and never more. A process Redis never listed has no rank and
 * takes only the even part.
 */

export interface AccountPart {
  /** How many processes share the account (at least 1). */
  readonly processes: number;
  /** This process's place in Redis's sorted list of the account's processes; undefined when it is not on it. */
  readonly rank?: number | undefined;
}

/** A process alone: the whole account. */
export const WHOLE_ACCOUNT: AccountPart = { processes: 1, rank: 0 };

/** What of `limit` this part may use: the even part, one more for the lowest ranks while a remainder lasts, and at least 1. */
export function partOf(limit: number, part: AccountPart): number {
  const processes = Math.max(1, Math.floor(part.processes));
  const extra = part.rank !== undefined && part.rank >= 0 && part.rank < limit % processes ? 1 : 0;
  return Math.max(1, Math.floor(limit / processes) + extra);
}
