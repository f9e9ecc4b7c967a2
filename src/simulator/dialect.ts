/**
 * Dialects of the spec: the same market served as another upstream, written from the same
 * spec, would serve it. The spec fixes paths, auth, errors, limits and the dealer history's
 * payload; it leaves operation ids, query parameters, paging, payload wrappers, field names
 * and enum values open (note C), and OpenAPI itself allows many ways of writing one
 * operation. A dialect is a set of traits, each one way a real upstream fills one open point
 * (FastAPI with Pydantic v2, Swagger 3.0 generators, Polygon-, Alpaca-, Stripe- and
 * GitHub-style APIs). The simulator serves a dialect whole: its document (dialect-document.ts),
 * the names and forms it accepts on the wire and nothing else (dialect-params.ts), its paging
 * (dialect-paging.ts) and its bodies (dialect-body.ts).
 *
 * Four named dialects are fixed trait sets (`spec`, `camel`, `vendor`, `kebab`); any other is
 * composed from a seed (`seed:<n>`, dialect-compose.ts), each trait picked independently.
 * Chosen with MARKET_DATA_SIM_DIALECT or the simulator's `dialect` option; `describeDialect`
 * prints one in a line, so that a failure can be replayed.
 *
 * Adding a trait: add its type and field to `DialectTraits` below, give the four named
 * dialects the value that keeps them as they are, let `composeDialect` pick it from the
 * seed's stream (after the existing picks, so that the seeds already in CI keep their other
 * traits), make the room that writes it (document, params, paging or body) honour it, and
 * add it to `describeDialect`. A new value of an existing trait (as the JSON:API and Stripe
 * paging forms are) changes what a fixed seed serves even when drawn last: draw it only for
 * seeds past the fixed ones' range (dialect-compose.ts LATER_PAGING_FROM_SEED) and add fixed
 * seeds from there. The property tests (test/simulator/dialect-forms.test.ts) then hold every
 * seed's document valid and its answers to what it publishes.
 */
import { DEV_ENV } from '../config/env-vars.js';
import { composeDialect } from './dialect-compose.js';
import { DIALECT_NAMES, SEEDED_DIALECT, type DialectName } from './dialect-names.js';

export { DIALECT_NAMES, type DialectName };
/** The variable that picks the simulator's dialect: a name above, or `seed:<n>`. */
export const DIALECT_ENV = DEV_ENV.simDialect;

/** How operation ids are written (none: the document gives none). */
export const OPERATION_ID_FORMS = [
  'dotted',
  'camel',
  'namespaced',
  'kebab',
  'snake-verb',
  'tag-verb',
  'fastapi',
  'pascal',
  'none',
] as const;
export type OperationIdForm = (typeof OPERATION_ID_FORMS)[number];

/** Where parameters are declared: on the operation, by `$ref` to components, on the path item, or some of each. */
export type ParamDeclaration = 'inline' | 'ref' | 'path-level' | 'mixed';
/**
 * How an optional parameter says it may be null: not at all, 3.0's `nullable: true`, 3.1's
 * type array `[T, "null"]`, or 3.1's `anyOf: [T, {type: "null"}]` (FastAPI with Pydantic v2).
 */
export type NullableForm = 'none' | 'nullable' | 'type-array' | 'any-of';
/** Enum parameters: inline, by `$ref` to components/schemas, or by `$ref` inside an `allOf` wrapper. */
export type EnumForm = 'inline' | 'ref' | 'all-of-ref';
/**
 * Names of the filters (paging parameters are the paging trait's): ours; Google-style
 * (`startDate`/`endDate`, `sessionDate`, `symbols`, the rest as ours); camelCase throughout;
 * kebab-case; Alpaca-style (`symbols`, `start`/`end`, `date`); dotted ranges (`date.gte`/`date.lte`).
 */
export type ParamNaming = 'ours' | 'google' | 'camel' | 'kebab' | 'alpaca' | 'dotted-range';
/** A ticker list: one comma-joined string, an array sent comma-joined, or an array sent as repeated parameters. */
export type ListForm = 'comma-string' | 'array-comma' | 'array-explode';
/** Where a cursor answer puts the next token (`meta` is the wrapper's metadata object, top level without one). */
export type TokenAt = 'meta.next_cursor' | 'meta.next' | 'next' | 'next_cursor' | 'pagination.next_page_token';

/** How one list is paged. */
export type Paging =
  /** The spec's own reading: a page size answers the first rows; a `truncated` flag (or none) says more exist. */
  | { readonly kind: 'first-rows'; readonly size: string; readonly flag: boolean }
  /** An opaque token in the answer, sent back as `cursor`; a page size, or pages of `pageSize`. */
  | {
      readonly kind: 'cursor';
      readonly cursor: string;
      readonly size: string | null;
      readonly pageSize: number;
      readonly tokenAt: TokenAt;
      /** On the last page the token is null, or absent. */
      readonly last: 'null' | 'omit';
    }
  /** Page numbers, the next page's full URL in a `Link: <…>; rel="next"` header (GitHub). */
  | { readonly kind: 'link'; readonly page: string; readonly size: string | null; readonly pageSize: number }
  /** The next page's full URL in the body (`next_url`, Polygon), carrying only a cursor. */
  | { readonly kind: 'next-url'; readonly cursor: string; readonly size: string | null; readonly pageSize: number }
  /** Page numbers with the number of pages or of rows. */
  | { readonly kind: 'page-number'; readonly page: string; readonly size: string; readonly total: 'total_pages' | 'total' }
  /** Offsets with the number of rows. */
  | { readonly kind: 'offset'; readonly offset: string; readonly size: string }
  /**
   * JSON:API: `page[size]` with `page[number]`, `page[cursor]` or `page[offset]` (`page[limit]`
   * beside an offset), written as bracketed parameters or as one `page` with `style: deepObject`;
   * the next page in `links.next` (null on the last), or told in `meta.page`.
   */
  | {
      readonly kind: 'json-api';
      readonly form: 'brackets' | 'deep-object';
      readonly position: 'number' | 'cursor' | 'offset';
      readonly next: 'links' | 'meta';
      readonly pageSize: number;
    }
  /** Stripe: `has_more` and no token; the next page is asked with the last row's `id` under `cursor`. */
  | { readonly kind: 'after-id'; readonly cursor: string; readonly size: string | null; readonly pageSize: number }
  /** No paging at all: the whole list, or its first `cut` rows, with or without a `truncated` flag. */
  | { readonly kind: 'none'; readonly cut: number | null; readonly flag: boolean };

/**
 * Every list pages alike, or each list (by its operation id) picks its own from the seed.
 * `unpaged: 'whole'` serves the lists that have no page size in our catalog (a chain's bars,
 * a skew series) whole, as the named dialects do; `'paged'` pages them like the rest.
 */
export type PagingPlan =
  | { readonly kind: 'uniform'; readonly paging: Paging; readonly unpaged: 'whole' | 'paged' }
  | { readonly kind: 'per-list'; readonly seed: number };

/** The dealer history's paging parameters (the spec fixes `_meta.next_cursor`, not their names). */
export interface DealerPaging {
  readonly cursor: string;
  /** The page size's name; null: pages of `pageSize`. */
  readonly size: string | null;
  readonly pageSize: number;
}

export type RowWrapper =
  | 'data-meta'
  | 'results-meta'
  | 'items'
  | 'records'
  | 'data-rows'
  /** `kebab`'s own: a whole list bare, a page or a cut list as `{data: {rows}, meta}`. */
  | 'bare-when-whole'
  | 'bare'
  | 'polygon'
  | 'keyed-by-ticker';

/** Values of the open enums, ours → theirs. */
export interface EnumValues {
  readonly state: Readonly<Record<'live' | 'closed', string>>;
  readonly nodeType: Readonly<Record<'king' | 'call_wall' | 'put_wall' | 'positive' | 'negative', string>>;
  readonly dataSource: string;
}

export interface DialectTraits {
  readonly operationIds: OperationIdForm;
  readonly declaration: ParamDeclaration;
  readonly version: '3.0' | '3.1';
  readonly nullable: NullableForm;
  readonly enums: EnumForm;
  /** A one-value enum (`format=summary`) as `const` (3.1 only). */
  readonly constants: boolean;
  readonly naming: ParamNaming;
  readonly lists: ListForm;
  readonly paging: PagingPlan;
  readonly dealerPaging: DealerPaging;
  /** The dealer history as the spec shows it (`{data, _meta}`), or wrapped as every other list. */
  readonly dealerBody: 'spec' | 'as-lists';
  readonly wrapper: RowWrapper;
  /** Index of the payload field names in use (dialect-body.ts FIELD_ALIASES); 0 is ours. */
  readonly fieldNames: number;
  readonly numbers: 'json' | 'strings';
  readonly values: EnumValues;
  /** Paths absolute (`/v1/...`), or relative to `servers` with the base path, absolute or relative. */
  readonly servers: 'absolute' | 'base-path' | 'relative-base-path';
  /** Response schemas: the catalog's (`{type: object}` but the dealer's), or each wrapper and row described. */
  readonly responses: 'catalog' | 'described';
  readonly rateHeaders: boolean;
}

export interface Dialect {
  /** A named dialect, or `seed:<n>`. */
  readonly name: string;
  readonly traits: DialectTraits;
}

export const OUR_VALUES: EnumValues = {
  state: { live: 'live', closed: 'closed' },
  nodeType: { king: 'king', call_wall: 'call_wall', put_wall: 'put_wall', positive: 'positive', negative: 'negative' },
  dataSource: 'simulator',
};

const OURS: Omit<DialectTraits, 'operationIds' | 'paging' | 'dealerPaging' | 'wrapper' | 'rateHeaders'> = {
  declaration: 'inline',
  version: '3.1',
  nullable: 'none',
  enums: 'inline',
  constants: false,
  naming: 'ours',
  lists: 'comma-string',
  dealerBody: 'as-lists',
  fieldNames: 0,
  numbers: 'json',
  values: OUR_VALUES,
  servers: 'absolute',
  responses: 'catalog',
};

/**
 * - `spec`: our own reading (dotted ids, `limit`/`cursor`, `{data, _meta}`).
 * - `camel`: generator-style ids (`getDerivedDealerGexHistory`), Google-style camelCase
 *   parameters (`pageSize`/`pageToken`, `startDate`/`endDate`, `sessionDate`, `symbols`),
 *   rows under `results` with `meta.next`.
 * - `vendor`: another dotted scheme (`marketdata.derived_dealer_gex_history`); every list
 *   pages at a fixed size behind a cursor, and takes no page size, ticker list, side or
 *   date range (the dealer history takes only the cursor); rows under `items` with a
 *   top-level `next`, and no rate-limit headers.
 * - `kebab`: kebab-case ids, Alpaca-style names (`symbols`, `start`/`end`, `date`), rows
 *   under `data.rows` with `meta.next_cursor`, plain lists as a bare JSON array.
 */
const NAMED: Record<DialectName, DialectTraits> = {
  spec: {
    ...OURS,
    operationIds: 'dotted',
    paging: { kind: 'uniform', paging: { kind: 'first-rows', size: 'limit', flag: true }, unpaged: 'whole' },
    dealerPaging: { cursor: 'cursor', size: 'limit', pageSize: 60 },
    wrapper: 'data-meta',
    rateHeaders: true,
  },
  camel: {
    ...OURS,
    operationIds: 'camel',
    naming: 'google',
    paging: { kind: 'uniform', paging: { kind: 'first-rows', size: 'pageSize', flag: true }, unpaged: 'whole' },
    dealerPaging: { cursor: 'pageToken', size: 'pageSize', pageSize: 60 },
    wrapper: 'results-meta',
    rateHeaders: true,
  },
  vendor: {
    ...OURS,
    operationIds: 'namespaced',
    paging: {
      kind: 'uniform',
      paging: { kind: 'cursor', cursor: 'cursor', size: null, pageSize: 25, tokenAt: 'next', last: 'null' },
      unpaged: 'whole',
    },
    dealerPaging: { cursor: 'cursor', size: null, pageSize: 25 },
    wrapper: 'items',
    rateHeaders: false,
  },
  kebab: {
    ...OURS,
    operationIds: 'kebab',
    naming: 'alpaca',
    paging: { kind: 'uniform', paging: { kind: 'first-rows', size: 'limit', flag: true }, unpaged: 'whole' },
    dealerPaging: { cursor: 'cursor', size: 'limit', pageSize: 60 },
    wrapper: 'bare-when-whole',
    rateHeaders: true,
  },
};

/**
 * Filters a named dialect does not offer (vendor: a ticker list, a side, a date range); a
 * composed one offers them all. Only an optional filter is ever left out: a required input
 * (the tickers of a correlation) is the question itself.
 */
export function withheldFilters(dialect: Dialect): ReadonlySet<string> {
  return dialect.name === 'vendor' ? VENDOR_WITHHELD : NOTHING;
}
const VENDOR_WITHHELD: ReadonlySet<string> = new Set(['tickers', 'side', 'from', 'to']);
const NOTHING: ReadonlySet<string> = new Set();

export function isNamedDialect(dialect: Dialect): boolean {
  return (DIALECT_NAMES as readonly string[]).includes(dialect.name);
}

export function dialectNamed(name: string | undefined): Dialect {
  if (name === undefined || name === '') return { name: 'spec', traits: NAMED.spec };
  const seeded = SEEDED_DIALECT.exec(name);
  if (seeded) return composeDialect(Number(seeded[1]));
  if (!(DIALECT_NAMES as readonly string[]).includes(name))
    // Quoted as JSON, cut: the name comes from the environment. (config/said.ts is not imported:
    // it would make the simulator and the server share one more chunk, read at every start.)
    throw new Error(
      `${DIALECT_ENV}=${JSON.stringify(name.slice(0, 40))} is not a simulator dialect: one of ${DIALECT_NAMES.join(', ')}, or seed:<n>.`,
    );
  return { name, traits: NAMED[name as DialectName] };
}

/**
 * The dialect MARKET_DATA_SIM_DIALECT names (the spec's own when unset): the simulator's
 * default when its starter names none, so that the dialect suites run every in-process
 * simulator of the tests in the dialect the runner's environment names. The server's own
 * start reads it once, in src/config/development.ts, and hands it to the simulator.
 */
export function dialectFromEnv(env: NodeJS.ProcessEnv = process.env): Dialect {
  return dialectNamed(env[DIALECT_ENV]?.trim() || undefined);
}

function describePaging(paging: Paging): string {
  switch (paging.kind) {
    case 'first-rows':
      return `first-rows(${paging.size}${paging.flag ? ',truncated' : ''})`;
    case 'cursor':
      return `cursor(${paging.cursor},${paging.size ?? `fixed ${paging.pageSize}`},at ${paging.tokenAt},last ${paging.last})`;
    case 'link':
      return `link(${paging.page},${paging.size ?? `fixed ${paging.pageSize}`})`;
    case 'next-url':
      return `next-url(${paging.cursor},${paging.size ?? `fixed ${paging.pageSize}`})`;
    case 'page-number':
      return `page-number(${paging.page},${paging.size},${paging.total})`;
    case 'offset':
      return `offset(${paging.offset},${paging.size},total_count)`;
    case 'json-api':
      return `json-api(${paging.form},page[${paging.position}],${paging.next},${paging.pageSize})`;
    case 'after-id':
      return `after-id(${paging.cursor},${paging.size ?? `fixed ${paging.pageSize}`})`;
    case 'none':
      return `none(${paging.cut === null ? 'whole' : `cut ${paging.cut}`}${paging.flag ? ',truncated' : ''})`;
  }
}

/** A dialect's traits in one line: what a failing test prints, so that it can be replayed. */
export function describeDialect(dialect: Dialect): string {
  const t = dialect.traits;
  const dealer = `${t.dealerPaging.cursor},${t.dealerPaging.size ?? `fixed ${t.dealerPaging.pageSize}`}`;
  const paging =
    t.paging.kind === 'uniform' ? `${describePaging(t.paging.paging)}${t.paging.unpaged === 'paged' ? '+unpaged' : ''}` : 'per-list';
  const values = `state=${t.values.state.closed},node=${t.values.nodeType.king},source=${t.values.dataSource}`;
  return [
    `${DIALECT_ENV}=${dialect.name}:`,
    `ids=${t.operationIds}`,
    `params=${t.declaration}`,
    `openapi=${t.version}`,
    `nullable=${t.nullable}`,
    `enums=${t.enums}${t.constants ? '+const' : ''}`,
    `names=${t.naming}`,
    `lists=${t.lists}`,
    `paging=${paging}`,
    `dealer=${dealer}`,
    `dealer-body=${t.dealerBody}`,
    `wrapper=${t.wrapper}`,
    `fields=${t.fieldNames}`,
    `numbers=${t.numbers}`,
    values,
    `servers=${t.servers}`,
    `responses=${t.responses}`,
    `rate-headers=${t.rateHeaders}`,
  ].join(' ');
}
