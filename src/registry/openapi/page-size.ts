/**
 * A page size of 0 or less is never meant. A document that states no minimum for its page
 * size (`per_page: {type: integer, maximum: 100}`) has not said that `limit: 0` asks for
 * anything; sent, it is an empty page, the upstream's default, or every row, whichever the
 * upstream chose. So a parameter playing the page-size role (catalog/param-roles.ts), under
 * any name and in any dialect, takes at least 1, or the document's own minimum when that is
 * higher: a smaller one is refused before any request, with the bound in words, as the
 * catalog's own `limit` is.
 */
import { roleOf } from '../../catalog/param-roles.js';
import type { DocumentParameter } from './operations.js';

/** The smallest page anyone means. */
export const LEAST_PAGE_SIZE = 1;

/** The parameter with its page size's floor, when it plays that role; unchanged otherwise. */
export function withMeantPageSize(param: DocumentParameter): DocumentParameter {
  const { schema } = param;
  if (roleOf(param.name, schema.type, schema.format) !== 'pageSize') return param;
  if (schema.minimum !== undefined && schema.minimum >= LEAST_PAGE_SIZE) return param;
  return { ...param, schema: { ...schema, minimum: LEAST_PAGE_SIZE } };
}
