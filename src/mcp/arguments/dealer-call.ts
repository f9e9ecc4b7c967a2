/**
 * The first stage of a dealer-history call: its arguments screened into one DealerCall.
 * The upstream takes only a page size and a cursor for this endpoint (under whatever names
 * its document gives those roles); the view, the session or range and the limit are this
 * server's, applied over the pages read. A cursor is always one of ours (every answer of
 * this tool hands out `mc1-…` cursors): it carries the view and window of the first call and
 * where the next answer starts.
 */
import type { MarketDataClient } from '../../api/client.js';
import { datasetQuery, type DatasetQuery } from '../../api/dataset-query.js';
import { upstreamRoles } from '../../catalog/param-roles.js';
import type { NextPage } from '../../api/next-page.js';
import { dealerShaping, validateAgentParam, validateRequest, type DatasetDefinition } from '../../catalog/index.js';
import { invalidArguments, refusalError, unreadableOperation } from '../answers/tool-errors.js';
import { argumentsOf, decodePageCursor, invalidCursor, isOurCursor, upstreamPageOf } from './cursor.js';
import type { ToolArguments } from './input-schema.js';
import { knownScopeRefusal } from './scope.js';
import { screenToolArguments } from './screen.js';

export type DealerView = 'latest' | 'levels' | 'full' | 'sessions';

export interface DealerWindow {
  session?: string;
  from?: string;
  to?: string;
}

export interface DealerCall {
  /**
   * The history's query, named once: the dataset, the ticker and the roles its document's
   * parameters play, worked out here; its values are the reader's (a page size, a position).
   */
  readonly query: DatasetQuery;
  readonly view: DealerView;
  /** The session or range asked (none: the newest, or all three for `sessions`). */
  readonly window: DealerWindow;
  readonly limit: number | undefined;
  /** Where a cursor of ours resumes: the upstream page to read, and the last snapshot shown (`a`). */
  readonly position: { readonly at?: NextPage; readonly a?: string };
}

export function screenDealerCall(dataset: DatasetDefinition, args: ToolArguments, client: MarketDataClient): DealerCall {
  // Listed by the document in a form this server cannot read: nothing is sent on our guesses.
  if (dataset.unreadable !== undefined) throw unreadableOperation(dataset.unreadable);
  // The roles of the document's parameters (page size, cursor), worked out once and handed on in `query`.
  const roles = upstreamRoles(dataset);
  const screened = screenToolArguments(dataset, args, { roles });
  if (!screened.ok) throw refusalError(screened.refusal);
  const outOfScope = knownScopeRefusal(client, dataset.operationId);
  if (outOfScope) throw outOfScope;
  const { ticker, cursor: rawCursor, ...given } = screened.args;
  for (const name of Object.keys(given))
    if (!(name in dealerShaping))
      throw invalidArguments(`Unknown parameter "${name}".`, `Accepted parameters: ticker, ${Object.keys(dealerShaping).join(', ')}.`);
  const checked = validateRequest(dataset, ticker, {});
  if (!checked.ok) throw refusalError(checked.refusal);
  let shaping: Record<string, unknown> = given;
  let position: DealerCall['position'] = {};
  if (isOurCursor(rawCursor)) {
    const decoded = decodePageCursor(rawCursor, dataset.operationId, checked.ticker);
    shaping = argumentsOf(decoded, given, dataset.ticker !== undefined);
    const at = upstreamPageOf(decoded);
    position = { ...(at ? { at } : {}), ...(decoded.a ? { a: decoded.a } : {}) };
  } else if (rawCursor !== undefined && rawCursor !== null) {
    // Anything but a cursor of ours is not one the agent was given: refused here rather than sent upstream to fail there.
    throw invalidCursor('not one this server issued');
  }
  return { query: datasetQuery(dataset, checked.ticker, {}, roles), ...parseShaping(dataset, shaping), position };
}

/** Checks the MCP-side arguments against the catalog's shaping schemas, typed as agent input. */
function parseShaping(dataset: DatasetDefinition, args: Record<string, unknown>): Pick<DealerCall, 'view' | 'window' | 'limit'> {
  const parsed: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(dealerShaping)) {
    if (name === 'cursor') continue;
    const raw = args[name];
    if (raw === undefined || raw === null) continue;
    const checked = validateAgentParam(dataset, name, schema, raw);
    if (!checked.ok) throw refusalError(checked.refusal);
    parsed[name] = checked.value;
  }
  const session = parsed['session_date'] as string | undefined;
  const from = parsed['from'] as string | undefined;
  const to = parsed['to'] as string | undefined;
  if (session && isWeekend(session)) {
    throw invalidArguments(
      `${session} is a ${weekdayName(session)}: no exchange session, so no dealer snapshots.`,
      'Give a weekday session_date (the history holds the latest three sessions), or omit session_date for the latest.',
    );
  }
  if (session && (from || to))
    throw invalidArguments('session_date and from/to cannot be combined.', 'Give one session_date, or a from/to range.');
  if (from && to && instant(from, 'start') > instant(to, 'end')) throw invalidArguments('from is after to.', 'Swap from and to.');
  return {
    view: (parsed['view'] as DealerView | undefined) ?? 'latest',
    window: { ...(session ? { session } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) },
    limit: parsed['limit'] as number | undefined,
  };
}

/** Saturday and Sunday are never exchange sessions, whatever the calendar of holidays. */
function isWeekend(date: string): boolean {
  const day = new Date(`${date}T12:00:00Z`).getUTCDay();
  return day === 0 || day === 6;
}

function weekdayName(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
}

/** A date bound as a time: a date alone covers its whole ET day. */
function instant(value: string, edge: 'start' | 'end'): number {
  if (value.length === 10)
    return Date.parse(`${value}T${edge === 'start' ? '00:00:00' : '23:59:59'}-05:00`) + (edge === 'end' ? 3_600_000 : 0);
  return Date.parse(value);
}
