/**
 * One dataset call's query as the planning stage names it, once: the dataset, the ticker,
 * the values (MCP-side names) and which of the document's parameters plays each role (page
 * size, cursor, page, offset, session, range; catalog/param-roles.ts), the largest page it
 * takes and whether its cursor takes a row's id, worked out here and handed on. The reader, the client, the request target, the next page and the cache's
 * keep-for read the roles from this object instead of working them out again.
 */
import type { DatasetDefinition, QueryValues } from '../catalog/index.js';
import { pageSizeMaximum, takesRowId, upstreamRoles, type RoleNames } from '../catalog/param-roles.js';
import { upstreamName } from '../catalog/upstream-names.js';

export interface DatasetQuery {
  readonly dataset: DatasetDefinition;
  readonly ticker: string | undefined;
  /** What is sent, under our MCP-side names (request-target.ts puts them under the upstream's). */
  readonly values: QueryValues;
  /** The parameter playing each role, by its MCP-side name; a role the document does not offer is absent. */
  readonly roles: RoleNames;
  /** The largest page the upstream takes, from its page-size parameter's schema; undefined when it states none. */
  readonly largestPage: number | undefined;
  /** Whether the cursor parameter takes the last row's id (Stripe's `starting_after`), not a token the upstream names. */
  readonly cursorTakesRowId: boolean;
}

/** The query of a call of `dataset`, with the roles the planning stage worked out (worked out here when none are given). */
export function datasetQuery(
  dataset: DatasetDefinition,
  ticker: string | undefined,
  values: QueryValues,
  roles: RoleNames = upstreamRoles(dataset),
): DatasetQuery {
  return {
    dataset,
    ticker,
    values,
    roles,
    largestPage: pageSizeMaximum(dataset, roles.pageSize),
    cursorTakesRowId: roles.cursor !== undefined && takesRowId(upstreamName(dataset, roles.cursor)),
  };
}

/** The same query with other values (a page's position, a larger page): its roles as they were. */
export function withValues(query: DatasetQuery, values: QueryValues): DatasetQuery {
  return { ...query, values };
}
