/**
 * Which part of the account a process keeps to while it cannot share the account's gate
 * through Redis, and why (for api_status). In order:
 * - the processes Redis last listed to this process (src/redis/members.ts), with its rank;
 * - before Redis has answered this process at all (it started during an outage): what this
 *   node last saw (its state directory, src/redis/members-record.ts);
 * - else ASSUMED_PROCESSES: the node cannot know who else spends the account, so it
 *   leaves room for others rather than take the whole account.
 * `MARKET_DATA_EXPECTED_PROCESSES`, when set, is a floor on all of them: every process
 * then leaves room for that many, including those started during the outage.
 * The upstream's rate headers still bound the window whatever the part (the fallback
 * gate leaves what they show the others spent).
 */
import type { AccountPart } from '../api/gate/account-share.js';

/** Processes assumed to share the account when nothing says how many: 1 of 5 in flight and 20 of 60 a window. */
export const ASSUMED_PROCESSES = 3;

export interface PartInForce {
  part: AccountPart;
  /** Says where the count comes from, completing "…processes of the account: …". */
  because: string;
}

export interface OutagePartSources {
  /** What Redis last said to this process, or undefined if it never answered. */
  seen(): AccountPart | undefined;
  /** What this node last saw, from its state directory. */
  remembered?: number | undefined;
  /** MARKET_DATA_EXPECTED_PROCESSES. */
  expected?: number | undefined;
}

export function partInForce(sources: OutagePartSources): PartInForce {
  const expected = sources.expected ?? 0;
  const seen = sources.seen();
  const known: PartInForce | undefined = seen
    ? { part: seen, because: 'as last seen through Redis' }
    : sources.remembered !== undefined
      ? { part: { processes: sources.remembered }, because: 'as this node last saw through Redis (its state directory)' }
      : undefined;
  if (known && known.part.processes >= expected) return known;
  if (expected > 0) return { part: { processes: expected, rank: known?.part.rank }, because: 'as MARKET_DATA_EXPECTED_PROCESSES says' };
  return {
    part: { processes: ASSUMED_PROCESSES },
    because: 'assumed: Redis has not answered this process yet and this node has no record of the count',
  };
}
