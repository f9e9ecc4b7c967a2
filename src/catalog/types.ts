import type * as z from 'zod';

/**
 * How fast a dataset's data changes; the client's cache time-to-live follows from it.
 * `static` is for reference data such as directories.
 */
export type CacheClass = 'intraday' | 'daily' | 'filings' | 'static';

export type QueryShape = Record<string, z.ZodType>;

export interface DatasetDefinition {
  /** Dotted operation id, as in the upstream OpenAPI document (`flow.ticker_overview`). */
  readonly operationId: string;
  /** Path under the base URL, with `{ticker}` where the ticker goes. */
  readonly path: `/v1/${string}`;
  readonly title: string;
  /** What the dataset holds and when an agent should reach for it. */
  readonly description: string;
  /** Schema of the `{ticker}` path parameter, when the path has one. */
  readonly ticker?: z.ZodType<string>;
  /** Query parameters; names not in here are refused with VALIDATION_ERROR. Non-optional ones are required. */
  readonly query: QueryShape;
  /** Built on demand: the first request may answer 202 or READ_MODEL_UNAVAILABLE. */
  readonly onDemand: boolean;
  readonly cacheClass: CacheClass;
  /** Only configured administrator user ids may call it (spec: endpoint 1). */
  readonly adminOnly?: boolean;
  /** Whether index underlyings (SPX, NDX, VIX...) are served; false answers INDEX_UNSUPPORTED. */
  readonly indexesSupported?: boolean;
  /** Days of history kept; a `from` older than this answers RANGE_TOO_DEEP. */
  readonly retentionDays?: number;
  /** A capability the service can switch off (SERVICE_DISABLED). */
  readonly capability?: string;
  /** Response schema, where the spec gives one. */
  readonly response?: z.ZodType;
  /**
   * Parameters this server applies itself and never sends upstream (views, time ranges
   * over pages, cursors over trimmed pages). A name also in `query` is advertised as here.
   */
  readonly shaping?: QueryShape;
  /**
   * MCP-side name → the upstream's own, where its document names a parameter otherwise
   * (`pageSize` for `limit`, `symbols` for `tickers`): the tool keeps its portable name.
   */
  readonly upstreamNames?: Readonly<Record<string, string>>;
  /**
   * Parameters of ours the upstream's document does not offer (a page size, a ticker list,
   * a side, a session or range): in `shaping`, applied here over the upstream's pages.
   */
  readonly localParams?: readonly string[];
  /** Schema of the `data` the tool answers with, when it differs from the response's. */
  readonly toolOutput?: z.ZodType;
  /**
   * Path variables other than the ticker: MCP-side names held in `query` whose values go in
   * the path (`{name}` in `path`), not in the query string.
   */
  readonly pathParams?: readonly string[];
  /** List parameters (MCP-side name → how the document puts the values on the wire). */
  readonly wireForms?: Readonly<Record<string, WireForm>>;
  /**
   * Why the upstream's document, which lists this dataset, cannot be read for it: the tool
   * stays, says so, and refuses calls rather than send the catalog's guesses.
   */
  readonly unreadable?: string;
  /** Row fields the upstream's document lists for this dataset's answers, where it lists any. */
  readonly responseFields?: readonly string[];
}

/** How a list parameter goes on the wire: each value as its own pair (`a=1&a=2`), or joined (`a=1,2`). */
export interface WireForm {
  readonly explode: boolean;
  readonly delimiter: ',' | ' ' | '|';
}

export interface MetaEndpoint {
  readonly operationId: string;
  readonly path: `/v1/${string}`;
  readonly title: string;
  readonly description: string;
}
