/**
 * The first stage of a dataset call: the agent's arguments screened and sorted by where
 * each goes, named once. What is sent upstream (the document's parameters, under our
 * MCP-side names), what is applied here over the upstream's pages (a page size, tickers,
 * a session or range the document does not offer, a row filter of the tool's own), the
 * `fields` to keep, and where the answer starts (a cursor of ours reopened: its query is
 * the agent's input again, screened again). Anything refused is refused here, before any
 * request: a bad value, a dataset the document cannot describe, one out of the key's scope
 * by discover, `fields` that name nothing the dataset is known to have.
 */
import type { MarketDataClient } from '../../api/client.js';
import { datasetQuery, type DatasetQuery } from '../../api/dataset-query.js';
import type { DatasetDefinition, QueryValues } from '../../catalog/index.js';
import { upstreamRoles } from '../../catalog/param-roles.js';
import { planLocalRead, type LocalPlan } from '../reading/local-plan.js';
import { refusalError, unreadableOperation } from '../answers/tool-errors.js';
import { isOurCursor, pagingOf, serverDrivenParams, type Paging } from './cursor.js';
import { parseFields, refuseUnknownFields } from './fields.js';
import { FIELDS_PARAM, supportsFields, type ToolArguments } from './input-schema.js';
import { knownScopeRefusal } from './scope.js';
import { checkScreenedArguments, screenToolArguments } from './screen.js';

export interface DatasetCall extends LocalPlan {
  /**
   * What is sent upstream, named once: the dataset, the ticker, the document's parameters
   * (MCP-side names, the cursor's page among them) and the roles they play, worked out here.
   */
  readonly query: DatasetQuery;
  /** Everything asked, upstream and local alike: what the answer covers, and what advice does not suggest again. */
  readonly asked: QueryValues;
  readonly fields: readonly string[] | undefined;
  /** Where the answer starts: the first page, or the upstream page and row a cursor of ours names. */
  readonly paging: Paging | undefined;
}

/** Screens a call of a dataset tool (not the dealer history's, which has its own: dealer-call.ts). */
export function screenDatasetCall(dataset: DatasetDefinition, args: ToolArguments, client: MarketDataClient): DatasetCall {
  // Listed by the document in a form this server cannot read: nothing is sent on our guesses.
  if (dataset.unreadable !== undefined) throw unreadableOperation(dataset.unreadable);
  const projectable = supportsFields(dataset);
  // Which of the document's parameters is the page size, the cursor, the page, a session...:
  // worked out once, here, and handed on in `query` to every later stage.
  const roles = upstreamRoles(dataset);
  // One screening for every tool: nulls, host control properties, unknown and prototype names.
  const screened = screenToolArguments(dataset, args, { extraParams: projectable ? [FIELDS_PARAM] : [], roles });
  if (!screened.ok) throw refusalError(screened.refusal);
  // Out of scope by discover: answered here, for every tool alike, before any request.
  const outOfScope = knownScopeRefusal(client, dataset.operationId);
  if (outOfScope) throw outOfScope;
  // The cursor of an earlier page brings back its `fields` too (cursor.ts).
  const { args: paged, paging, fields: rawFields } = pagingOf(dataset, roles, screened.args);
  // A cursor of ours brings back the query of its first page: input from the agent again, screened as it is opened.
  // Its page number or offset, which no agent gives, is the cursor's own (cursor.ts serverDrivenParams).
  const reopened = isOurCursor(screened.args['cursor'])
    ? screenToolArguments(dataset, paged, { extraParams: [...serverDrivenParams(dataset, roles)], roles })
    : { ok: true as const, args: paged };
  if (!reopened.ok) throw refusalError(reopened.refusal);
  const resolved = reopened.args;
  const checked = checkScreenedArguments(dataset, resolved);
  if (!checked.ok) throw refusalError(checked.refusal);
  // What the read does here over the upstream's pages (its refusals, too, before any request).
  const { local, rowFilter } = planLocalRead(dataset, resolved);
  const fields = projectable ? parseFields(rawFields) : undefined;
  refuseUnknownFields(client, dataset, checked.query, fields);
  return {
    query: datasetQuery(dataset, checked.ticker, checked.query, roles),
    local,
    rowFilter,
    asked: local ? { ...checked.query, ...local } : checked.query,
    fields,
    paging,
  };
}
