/**
 * What one call carries from where it arrives to the upstream request: who asked, the
 * signal that ends it early, when it must have answered, and what it cost. Made once per
 * tool call (src/mcp/call-context.ts, from what the SDK hands the tool), handed to the
 * client in its options and by the client to the account gate with each permit request:
 * the fair-share and budget gates read the caller, the observed and budget gates write the
 * cost, and the audit line reads it back.
 */
import type { Caller } from '../auth/caller.js';

export interface CallRecord {
  /** Quota units this call spent (upstream data answers with status 200). */
  units: number;
  upstreamRequests: number;
  gateWaitMs: number;
  /**
   * The daily budget's decision for this call, taken at its first charged request: a call
   * admitted reads all its pages, so rows already paid for are never thrown away.
   */
  budgetAdmission?: Promise<boolean>;
}

export interface CallContext {
  /** The signed-in user of an --http request; undefined over stdio. */
  readonly caller: Caller | undefined;
  /**
   * Aborts when the call ends before it answered: the client cancelled it, an --http caller
   * hung up, or the server is shutting down (an ApiError reason says which words the caller gets).
   */
  readonly signal: AbortSignal;
  /** Epoch milliseconds by which the call must have answered: a tool that makes several requests shares it. */
  readonly deadline: number;
  /** What the call has cost so far. */
  readonly record: CallRecord;
}

export interface CallParts {
  caller?: Caller | undefined;
  /** Each ends the call when it aborts (undefined ones are left out). */
  signals?: readonly (AbortSignal | undefined)[];
  deadline: number;
}

export function newCallContext(parts: CallParts): CallContext {
  const signals = (parts.signals ?? []).filter((s): s is AbortSignal => s !== undefined);
  return {
    caller: parts.caller,
    signal: signals.length === 1 && signals[0] ? signals[0] : AbortSignal.any(signals),
    deadline: parts.deadline,
    record: { units: 0, upstreamRequests: 0, gateWaitMs: 0 },
  };
}
