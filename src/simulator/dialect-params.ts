/**
 * A dataset's parameters as a dialect publishes and accepts them: our filters under the
 * dialect's names (ticker lists as one string or as arrays), the catalog's page size and
 * cursor replaced by the paging protocol's own parameters, and nothing else: the
 * simulator refuses any other name (VALIDATION_ERROR, as the spec says). A request's
 * validated values are read back here into our names, which the generators read.
 */
import * as z from 'zod';
import { cursor as cursorSchema, type DatasetDefinition, type QueryShape, type QueryValues } from '../catalog/index.js';
import { isRequiredParam } from '../catalog/validate.js';
import { withheldFilters, type DealerPaging, type Dialect, type ListForm, type ParamNaming, type Paging } from './dialect.js';
import { DEALER_PATH, hasNativeCursor, listPaging } from './dialect-lists.js';

export type ParamRole =
  | { readonly kind: 'filter'; readonly ours: string }
  | { readonly kind: 'size' }
  | { readonly kind: 'cursor' }
  | { readonly kind: 'page' }
  | { readonly kind: 'offset' };

export interface PublishedParam {
  /** The dialect's name for it. */
  readonly name: string;
  readonly role: ParamRole;
  /** How a ticker list is written; undefined for every other parameter. */
  readonly list: ListForm | undefined;
}

export interface Publication {
  /** The dataset with its query under the dialect's names: what validation and the document read. */
  readonly published: DatasetDefinition;
  readonly params: readonly PublishedParam[];
  /** How the list pages; undefined for one object and for the dealer history. */
  readonly paging: Paging | undefined;
  /** The dealer history's paging, for it alone. */
  readonly dealer: DealerPaging | undefined;
  /** Array parameters sent as repeated names (`symbols=A&symbols=B`). */
  readonly exploded: ReadonlySet<string>;
}

/** What a request asked of the paging protocol, in our terms. */
export interface PageRequest {
  readonly size?: number;
  readonly cursor?: string;
  readonly page?: number;
  readonly offset?: number;
}

/** Parameters that hold a list of tickers, by our name. */
export const TICKER_LISTS: ReadonlySet<string> = new Set(['tickers', 'with_tickers']);

const GOOGLE: Readonly<Record<string, string>> = { from: 'startDate', to: 'endDate', session_date: 'sessionDate', tickers: 'symbols' };
const CAMEL: Readonly<Record<string, string>> = { from: 'startDate', to: 'endDate', tickers: 'symbols' };
const ALPACA: Readonly<Record<string, string>> = { tickers: 'symbols', from: 'start', to: 'end', session_date: 'date' };
const DOTTED: Readonly<Record<string, string>> = { from: 'date.gte', to: 'date.lte' };

function own(map: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.hasOwn(map, name) ? map[name] : undefined;
}

/** `derived.dealer_gex_history` → `DerivedDealerGexHistory`: names of schemas, parameters and operation ids. */
export function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/** A filter's name in the dialect. */
export function theirName(ours: string, naming: ParamNaming): string {
  switch (naming) {
    case 'ours':
      return ours;
    case 'google':
      return own(GOOGLE, ours) ?? ours;
    case 'camel':
      return own(CAMEL, ours) ?? ours.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    case 'kebab':
      return ours.replaceAll('_', '-');
    case 'alpaca':
      return own(ALPACA, ours) ?? ours;
    case 'dotted-range':
      return own(DOTTED, ours) ?? ours;
  }
}

/** A list's page size where our catalog has none: the protocol's own bounds. */
const ADDED_SIZE = z.coerce.number().int().min(1).max(500).default(100).describe('Rows per page.');
const PAGE = z.coerce.number().int().min(1).max(1_000_000).default(1).describe('Page number, from 1.');
const OFFSET = z.coerce.number().int().min(0).max(10_000_000).default(0).describe('Rows to skip.');
const TOKEN = cursorSchema.optional();
/** Stripe's `starting_after`: a row's id, not a token of ours. */
const AFTER_ID = z
  .string()
  .regex(/^[A-Za-z0-9_]{1,128}$/)
  .optional()
  .describe('The id of the last row of the previous page: the rows after it are served.');

/**
 * The largest page a list paged by row ids publishes: every row then carries an id, and the
 * catalog's largest pages (3,000 ticker exchanges, 236 kB) no longer fit the API's 256 KiB
 * ceiling with them (275 kB), so an upstream of this form states a maximum it can serve.
 */
const AFTER_ID_MAX_PAGE = 1000;

/** A page-size parameter bounded by AFTER_ID_MAX_PAGE, its own bounds and default kept below it. */
function withinIdCeiling(schema: z.ZodType): z.ZodType {
  const stated = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    maximum?: number;
    minimum?: number;
    default?: number;
  };
  const max = Math.min(stated.maximum ?? AFTER_ID_MAX_PAGE, AFTER_ID_MAX_PAGE);
  const min = Math.min(stated.minimum ?? 1, max);
  const bounded = z.coerce.number().int().min(min).max(max);
  const described = schema.description ? bounded.describe(schema.description) : bounded;
  return stated.default === undefined ? described.optional() : described.default(Math.min(stated.default, max));
}

function sizeNameOf(paging: Paging | undefined): string | null {
  if (!paging || paging.kind === 'none') return null;
  if (paging.kind === 'json-api') return paging.position === 'offset' ? 'page[limit]' : 'page[size]';
  return paging.size;
}

function build(dataset: DatasetDefinition, dialect: Dialect): Publication {
  const query: QueryShape = {};
  const params: PublishedParam[] = [];
  const add = (name: string, role: ParamRole, schema: z.ZodType, list?: ListForm): void => {
    if (Object.hasOwn(query, name)) return;
    query[name] = schema;
    params.push({ name, role, list });
  };
  const limit = dataset.query['limit'];
  if (dataset.path === DEALER_PATH) {
    const dealer = dialect.traits.dealerPaging;
    if (dealer.size && limit) add(dealer.size, { kind: 'size' }, limit);
    add(dealer.cursor, { kind: 'cursor' }, dataset.query['cursor'] ?? TOKEN);
    return { published: { ...dataset, query }, params, paging: undefined, dealer, exploded: new Set() };
  }
  const paging = listPaging(dialect, dataset);
  const native = hasNativeCursor(dataset) && paging?.kind === 'cursor';
  const withheld = withheldFilters(dialect);
  const sizeName = sizeNameOf(paging);
  for (const [ours, schema] of Object.entries(dataset.query)) {
    if (ours === 'limit' && paging) {
      if (sizeName) add(sizeName, { kind: 'size' }, paging.kind === 'after-id' ? withinIdCeiling(schema) : schema);
      continue;
    }
    if (ours === 'cursor' && hasNativeCursor(dataset)) {
      if (native && paging.kind === 'cursor') add(paging.cursor, { kind: 'cursor' }, schema);
      continue;
    }
    if (withheld.has(ours) && !isRequiredParam(schema)) continue;
    add(
      theirName(ours, dialect.traits.naming),
      { kind: 'filter', ours },
      schema,
      TICKER_LISTS.has(ours) ? dialect.traits.lists : undefined,
    );
  }
  if (sizeName) add(sizeName, { kind: 'size' }, ADDED_SIZE);
  if (paging?.kind === 'cursor' || paging?.kind === 'next-url') add(paging.cursor, { kind: 'cursor' }, TOKEN);
  if (paging?.kind === 'after-id') add(paging.cursor, { kind: 'cursor' }, AFTER_ID);
  if (paging?.kind === 'json-api') {
    if (paging.position === 'number') add('page[number]', { kind: 'page' }, PAGE);
    else if (paging.position === 'offset') add('page[offset]', { kind: 'offset' }, OFFSET);
    else add('page[cursor]', { kind: 'cursor' }, TOKEN);
  }
  if (paging?.kind === 'link' || paging?.kind === 'page-number') add(paging.page, { kind: 'page' }, PAGE);
  if (paging?.kind === 'offset') add(paging.offset, { kind: 'offset' }, OFFSET);
  const exploded = new Set(params.filter((p) => p.list === 'array-explode').map((p) => p.name));
  return { published: { ...dataset, query }, params, paging, dealer: undefined, exploded };
}

const memo = new WeakMap<DatasetDefinition, Map<string, Publication>>();

/** A dataset as the dialect publishes it (memoised: read on every request). */
export function publication(dataset: DatasetDefinition, dialect: Dialect): Publication {
  let byDialect = memo.get(dataset);
  if (!byDialect) memo.set(dataset, (byDialect = new Map<string, Publication>()));
  let known = byDialect.get(dialect.name);
  if (!known) byDialect.set(dialect.name, (known = build(dataset, dialect)));
  return known;
}

/** A request's validated values, in our names: the filters the generators read, and what it asked of the paging. */
export function readQuery(pub: Publication, validated: QueryValues): { filters: QueryValues; page: PageRequest } {
  const filters: Record<string, string | number> = {};
  let page: { size?: number; cursor?: string; page?: number; offset?: number } = {};
  for (const param of pub.params) {
    if (!Object.hasOwn(validated, param.name)) continue;
    const value = validated[param.name];
    if (value === undefined) continue;
    const role = param.role;
    if (role.kind === 'filter') filters[role.ours] = value;
    else if (role.kind === 'cursor') page = { ...page, cursor: String(value) };
    else page = { ...page, [role.kind]: Number(value) };
  }
  if (pub.dealer) {
    // The dealer generator reads our names: its page size (the dialect's fixed one where it takes none) and cursor.
    filters['limit'] = page.size ?? pub.dealer.pageSize;
    if (page.cursor !== undefined) filters['cursor'] = page.cursor;
  }
  return { filters, page };
}
