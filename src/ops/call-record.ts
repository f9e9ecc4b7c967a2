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
}

const context = new AsyncLocalStorage<CallRecord>();

export function recordCall<T>(record: CallRecord, run: () => T): T {
  return context.run(record, run);
}

export function currentRecord(): CallRecord | undefined {
  return context.getStore();
}
