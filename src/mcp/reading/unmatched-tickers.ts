/**
 * A `tickers=` filter that left some of its tickers with no row: said in the answer's
 * notice, whoever applied the filter (the upstream, or this server over its pages). A
 * screen of ZZZZ answered `data: []` with no word, and an agent could not tell a ticker
 * with no row from a ticker it mistyped. Said of the rows read only: a ticker may have
 * rows beyond them (a later page, a list the upstream cut), so nothing is claimed absent.
 */
import type { ApiResult } from '../../api/client.js';
import type { DatasetCall } from '../arguments/dataset-call.js';
import { tickerOf } from './field-roles.js';

/** The tickers a call filtered by, whoever applies the filter: the tool's row filter, ours over the pages, or the upstream's. */
export function filteredTickers(request: DatasetCall): readonly string[] {
  if (request.rowFilter?.tickers) return request.rowFilter.tickers;
  const upstream = request.query.roles.tickers;
  const asked = request.local?.['tickers'] ?? (upstream ? request.query.values[upstream] : undefined);
  if (typeof asked !== 'string') return [];
  return asked
    .split(',')
    .map((ticker) => ticker.trim().toUpperCase())
    .filter(Boolean);
}

/** "No row for ZZZZ in the rows read." for the tickers asked that no row carries; undefined when each has one or rows name no ticker. */
export function unmatchedTickersNotice(asked: readonly string[], data: unknown): string | undefined {
  if (asked.length === 0 || !Array.isArray(data)) return undefined;
  const rows = data.filter((row): row is Record<string, unknown> => typeof row === 'object' && row !== null);
  const seen = new Set(rows.map((row) => tickerOf(row)?.toUpperCase()).filter((ticker) => ticker !== undefined));
  // Rows that name no ticker at all say nothing of which tickers they hold.
  if (rows.length > 0 && seen.size === 0) return undefined;
  const missing = [...new Set(asked)].filter((ticker) => !seen.has(ticker));
  return missing.length === 0 ? undefined : `No row for ${missing.join(', ')} in the rows read.`;
}

/** The answer with the unmatched tickers said first in its notice, when there are any. */
export function withUnmatchedTickers(request: DatasetCall, result: ApiResult): ApiResult {
  // A page a cursor reads on to: a ticker whose rows were all on the pages before has none here, and is not missing.
  const paging = request.paging;
  if (paging && (paging.upstreamPage !== undefined || paging.skip > 0)) return result;
  const asked = filteredTickers(request);
  // Rows are looked at only when tickers were asked: a call without the filter leaves them to shaping.
  if (asked.length === 0) return result;
  const notice = unmatchedTickersNotice(asked, result.data);
  if (notice === undefined) return result;
  return { ...result, meta: { ...result.meta, notice: [notice, result.meta.notice].filter(Boolean).join(' ') } };
}
