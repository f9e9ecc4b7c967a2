/**
 * What one tool call cost, gathered while it runs: the gate and the upstream report into
 * the record of the call whose async context they run in, and the audit line reads it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

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

const context = new AsyncLocalStorage<CallRecord>();

export function recordCall<T>(record: CallRecord, run: () => T): T {
  return context.run(record, run);
}

export function currentRecord(): CallRecord | undefined {
  return context.getStore();
}
