/**
 * The answer to a call known empty by the calendar (a weekend, a holiday, a session not
 * opened yet: reading/known-empty.ts): no rows, no request, and the reason in the notice.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { KnownEmpty } from '../reading/known-empty.js';
import { toolResult } from './results.js';

/** The answer itself: no rows, not charged, and why, shaped as every result is. */
export function knownEmptyResult(operationId: string, empty: KnownEmpty, simulated: boolean, data: unknown = []): CallToolResult {
  return toolResult({
    data,
    meta: {
      operation_id: operationId,
      cache_hit: false,
      age_seconds: 0,
      truncated: false,
      has_more: false,
      // Answered here from the calendar: no request was sent.
      units: 0,
      notice: empty.notice,
      covers: empty.covers,
      ...(simulated ? { simulated: true } : {}),
    },
  });
}
