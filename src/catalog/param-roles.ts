/**
 * The role an upstream query parameter plays, recognised from its name and schema: the
 * spec leaves the dealer history's and most datasets' parameter names open (note C), so
 * the MCP-side features (page size, paging, a session, a range, a ticker list) are bound
 * to roles, and sent under whatever name the live document gives that role. A role the
 * document does not offer is done locally over the upstream's pages, never sent.
 */
import type * as z from 'zod';
import { paramJsonSchema } from './openapi.js';
import type { DatasetDefinition, QueryShape } from './types.js';

export type ParamRole = 'pageSize' | 'cursor' | 'session' | 'rangeStart' | 'rangeEnd' | 'tickers' | 'side';

/** Names seen for each role in public APIs, compared without case, `_`, `-` or `.`. */
const NAMES: Record<ParamRole, readonly string[]> = {
  pageSize: ['limit', 'page_size', 'per_page', 'size', 'max_results', 'page_limit', 'count', 'top'],
  cursor: ['cursor', 'page_token', 'next_token', 'page_cursor', 'continuation_token', 'continuation', 'starting_after'],
  session: ['session_date', 'session', 'trading_date', 'date'],
  rangeStart: ['from', 'start', 'start_date', 'date_from', 'from_date', 'since', 'begin'],
  rangeEnd: ['to', 'end', 'end_date', 'date_to', 'to_date', 'until'],
  tickers: ['tickers', 'symbols', 'ticker_list', 'symbol_list'],
  side: ['side', 'transaction_type', 'trade_side'],
};

/** The JSON type each role needs: a page size that is text is not a page size. */
const TYPES: Record<ParamRole, readonly string[]> = {
  pageSize: ['integer', 'number'],
  cursor: ['string'],
  session: ['string'],
  rangeStart: ['string'],
  rangeEnd: ['string'],
  tickers: ['string', 'array'],
  side: ['string'],
};

const folded = (name: string): string => name.toLowerCase().replace(/[-_.]/g, '');
const FOLDED = Object.fromEntries(Object.entries(NAMES).map(([role, names]) => [role, names.map(folded)])) as Record<ParamRole, string[]>;

export type RoleNames = Partial<Record<ParamRole, string>>;

function typeOf(schema: z.ZodType): string | undefined {
  const type = paramJsonSchema(schema).schema['type'];
  return typeof type === 'string' ? type : undefined;
}

/** The role a parameter of this name and JSON type plays, if any (camelCase, snake_case and kebab-case alike). */
export function roleOf(name: string, type: string | undefined): ParamRole | undefined {
  const key = folded(name);
  return (Object.keys(NAMES) as ParamRole[]).find((role) => FOLDED[role].includes(key) && TYPES[role].includes(type ?? ''));
}

/** For each role, the upstream parameter that plays it (the first listed name wins). */
export function rolesOf(query: QueryShape): RoleNames {
  const roles: RoleNames = {};
  for (const role of Object.keys(NAMES) as ParamRole[]) {
    let best: { name: string; rank: number } | undefined;
    for (const [name, schema] of Object.entries(query)) {
      const rank = FOLDED[role].indexOf(folded(name));
      if (rank < 0 || !TYPES[role].includes(typeOf(schema) ?? '')) continue;
      if (!best || rank < best.rank) best = { name, rank };
    }
    if (best) roles[role] = best.name;
  }
  return roles;
}

const cached = new WeakMap<DatasetDefinition, RoleNames>();

/** The roles of a dataset's upstream parameters, worked out once per definition. */
export function upstreamRoles(dataset: DatasetDefinition): RoleNames {
  let roles = cached.get(dataset);
  if (!roles) {
    roles = rolesOf(dataset.query);
    cached.set(dataset, roles);
  }
  return roles;
}

/** The largest page the upstream takes, from its page-size parameter's schema. */
export function pageSizeMaximum(dataset: DatasetDefinition): number | undefined {
  const name = upstreamRoles(dataset).pageSize;
  const schema = name ? dataset.query[name] : undefined;
  const max = schema ? paramJsonSchema(schema).schema['maximum'] : undefined;
  return typeof max === 'number' && max >= 1 ? Math.floor(max) : undefined;
}
