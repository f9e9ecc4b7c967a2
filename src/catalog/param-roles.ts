/**
 * The role an upstream query parameter plays, recognised from its name and schema: the
 * spec leaves the dealer history's and most datasets' parameter names open (note C), so
 * the MCP-side features (page size, paging, a session, a range, a ticker list) are bound
 * to roles, and sent under whatever name the live document gives that role. A role the
 * document does not offer is done locally over the upstream's pages, never sent.
 */
import type * as z from 'zod';
import { paramJsonSchemaOnce } from './param-json-memo.js';
import { meantBound } from './params.js';
import type { DatasetDefinition, QueryShape } from './types.js';

export type ParamRole = 'pageSize' | 'cursor' | 'page' | 'offset' | 'session' | 'rangeStart' | 'rangeEnd' | 'tickers' | 'side';

/**
 * Names seen for each role in public APIs, compared without case, `_`, `-`, `.` or brackets
 * (`date.gte` is `dategte`; JSON:API's `page[size]` is `pagesize`, `page[number]` `pagenumber`).
 */
const NAMES: Record<ParamRole, readonly string[]> = {
  pageSize: ['limit', 'page_size', 'per_page', 'size', 'max_results', 'page_limit', 'count', 'top', 'max_page_size'],
  cursor: [
    'cursor',
    'page_token',
    'next_token',
    'page_cursor',
    'continuation_token',
    'continuation',
    'starting_after',
    'after',
    'after_id',
    'since_id',
    'page_after',
    'next_cursor',
    'next_page_token',
    'marker',
    'page',
  ],
  page: ['page', 'page_number', 'page_num', 'page_index', 'p'],
  offset: ['offset', 'skip', 'start', 'start_index', 'from', 'page_offset'],
  session: ['session_date', 'session', 'trading_date', 'date'],
  rangeStart: [
    'from',
    'start',
    'start_date',
    'date_from',
    'from_date',
    'since',
    'begin',
    'date.gte',
    'date_gte',
    'after',
    'date.gt',
    'min_date',
  ],
  rangeEnd: ['to', 'end', 'end_date', 'date_to', 'to_date', 'until', 'date.lte', 'date_lte', 'before', 'date.lt', 'max_date'],
  tickers: ['tickers', 'symbols', 'ticker_list', 'symbol_list'],
  side: ['side', 'transaction_type', 'trade_side'],
};

/** The JSON type each role needs: a page size that is text is not a page size, a page number that is text is a token. */
const TYPES: Record<ParamRole, readonly string[]> = {
  pageSize: ['integer', 'number'],
  cursor: ['string'],
  page: ['integer', 'number'],
  offset: ['integer', 'number'],
  session: ['string'],
  rangeStart: ['string'],
  rangeEnd: ['string'],
  tickers: ['string', 'array'],
  side: ['string'],
};

const DATE_FORMATS = new Set(['date', 'date-time']);
/**
 * Names that play two roles, told apart by the schema's format: `after` with a date format is
 * a range start, without one a cursor (Stripe's `starting_after`, GraphQL's `after`); `before`
 * with one is a range end. Names not listed here take any format but a date for a cursor.
 */
const NEEDS_DATE: Partial<Record<ParamRole, readonly string[]>> = { rangeStart: ['after'], rangeEnd: ['before'] };

const folded = (name: string): string => name.toLowerCase().replace(/[-_.[\]]/g, '');
const FOLDED = Object.fromEntries(Object.entries(NAMES).map(([role, names]) => [role, names.map(folded)])) as Record<ParamRole, string[]>;
const FOLDED_NEEDS_DATE = Object.fromEntries(
  Object.entries(NEEDS_DATE).map(([role, names]) => [role, (names ?? []).map(folded)]),
) as Partial<Record<ParamRole, string[]>>;

export type RoleNames = Partial<Record<ParamRole, string>>;

/** What a role is judged on besides the name: the JSON type (the first not null of a type list) and the format. */
export interface ParamKind {
  type: string | undefined;
  format?: string | undefined;
}

/** Read through the memo, which an added dataset's stand-ins are primed in (registry/openapi/import.ts): their own conversion says nothing of the plan. */
function kindOf(schema: z.ZodType): ParamKind {
  const json = paramJsonSchemaOnce(schema).schema;
  const types = Array.isArray(json['type']) ? (json['type'] as unknown[]) : [json['type']];
  const type = types.find((t): t is string => typeof t === 'string' && t !== 'null');
  const format = typeof json['format'] === 'string' ? json['format'] : undefined;
  return { type, format };
}

/** Whether a parameter of this (folded) name and kind plays `role`. */
function plays(role: ParamRole, key: string, kind: ParamKind): boolean {
  if (!FOLDED[role].includes(key) || !TYPES[role].includes(kind.type ?? '')) return false;
  const dated = kind.format !== undefined && DATE_FORMATS.has(kind.format);
  if (FOLDED_NEEDS_DATE[role]?.includes(key)) return dated;
  // A date is never a token: `after=2026-01-02` starts a range.
  if (role === 'cursor') return !dated;
  return true;
}

/**
 * Cursor names that mean "the rows after this one's id" (Stripe's `starting_after`, `after_id`,
 * `since_id`, a bare `after`), folded: an upstream that says `has_more` and names no token is
 * asked for its next page with the last row's id under one of these. Opaque-cursor names
 * (`cursor`, `page_token`, JSON:API's `page[after]`) never take an id we made up.
 */
const AFTER_ROW_ID = new Set(['startingafter', 'after', 'afterid', 'sinceid', 'startingafterid']);

/** Whether the upstream cursor parameter `name` takes the id of the last row read. */
export function takesRowId(name: string): boolean {
  return AFTER_ROW_ID.has(folded(name));
}

/** The role a parameter of this name and JSON type (and format) plays, if any (camelCase, snake_case and kebab-case alike). */
export function roleOf(name: string, type: string | undefined, format?: string): ParamRole | undefined {
  const key = folded(name);
  return (Object.keys(NAMES) as ParamRole[]).find((role) => plays(role, key, { type, format }));
}

/** For each role, the upstream parameter that plays it (the first listed name wins; a parameter plays one role). */
export function rolesOf(query: QueryShape): RoleNames {
  const roles: RoleNames = {};
  const kinds = Object.entries(query).map(([name, schema]) => ({ name, key: folded(name), kind: kindOf(schema) }));
  const taken = new Set<string>();
  for (const role of Object.keys(NAMES) as ParamRole[]) {
    let best: { name: string; rank: number } | undefined;
    for (const { name, key, kind } of kinds) {
      if (taken.has(name) || !plays(role, key, kind)) continue;
      const rank = FOLDED[role].indexOf(key);
      if (!best || rank < best.rank) best = { name, rank };
    }
    if (best) {
      roles[role] = best.name;
      taken.add(best.name);
    }
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

/** The largest page the upstream takes, from the schema of its page-size parameter `name` (the role's, from upstreamRoles). */
export function pageSizeMaximum(dataset: DatasetDefinition, name: string | undefined): number | undefined {
  const schema = name ? dataset.query[name] : undefined;
  const max = schema ? paramJsonSchemaOnce(schema).schema['maximum'] : undefined;
  const meant = meantBound(max);
  return meant !== undefined && meant >= 1 ? Math.floor(meant) : undefined;
}
