/**
 * The one place a generated payload passes before it is sent: the response shaping the
 * query asks for (format=summary today; issue 12's query filters hook in here).
 */
import type { QueryValues } from '../catalog/index.js';
import type { Payload, Row } from './generators/index.js';

/** `format=summary`: counts and numeric ranges instead of rows. */
export function summarize(payload: Payload): Row {
  const rows = Array.isArray(payload) ? payload : [payload];
  const summary: Row = { format: 'summary', row_count: rows.length };
  for (const key of Object.keys(rows[0] ?? {})) {
    const values = rows.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
    if (values.length === 0) continue;
    summary[`${key}_min`] = Math.min(...values);
    summary[`${key}_max`] = Math.max(...values);
  }
  return summary;
}

export function finalizePayload(_operationId: string, query: QueryValues, payload: unknown): unknown {
  if (query['format'] === 'summary' && typeof payload === 'object' && payload !== null) return summarize(payload as Payload);
  return payload;
}
