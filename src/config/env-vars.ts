/**
 * Every environment variable the server reads, in one table: its name, the concern it
 * belongs to and what it sets. Each concern's section (config.ts, http.ts, oauth.ts,
 * team.ts, development.ts) reads its variables by these names; `--help` prints the table
 * (src/cli-help.ts) and test/docs.test.ts holds README.md to it, both ways. Variables of
 * other specifications are read as they name them and not listed: OpenTelemetry's OTEL_*
 * (the SDK's, src/observe/tracing-settings.ts) and XDG_CACHE_HOME (config.ts).
 */

interface EnvVar {
  readonly name: string;
  /** What it sets, in a few words (--help). */
  readonly sets: string;
}

const TABLE = {
  /** The upstream account and how this server uses it (config.ts). */
  core: {
    apiKey: { name: 'MARKET_DATA_API_KEY', sets: 'the API key (never printed)' },
    baseUrl: { name: 'MARKET_DATA_BASE_URL', sets: "the API's base URL (https)" },
    logLevel: { name: 'MARKET_DATA_LOG_LEVEL', sets: 'log level on stderr' },
    deadlineMs: { name: 'MARKET_DATA_DEADLINE_MS', sets: 'what a tool call may take' },
    maxResponseBytes: { name: 'MARKET_DATA_MAX_RESPONSE_BYTES', sets: 'the largest answer read' },
    cacheEntries: { name: 'MARKET_DATA_CACHE_ENTRIES', sets: 'answers kept in memory' },
    toolsets: { name: 'MARKET_DATA_TOOLSETS', sets: 'toolsets offered' },
    tools: { name: 'MARKET_DATA_TOOLS', sets: 'single tools offered' },
    excludeTools: { name: 'MARKET_DATA_EXCLUDE_TOOLS', sets: 'tools left out' },
    resultTokens: { name: 'MARKET_DATA_RESULT_TOKENS', sets: "a result's token budget" },
    demo: { name: 'MARKET_DATA_DEMO', sets: 'the built-in simulator' },
    cacheDir: { name: 'MARKET_DATA_CACHE_DIR', sets: "where the upstream's document is kept" },
    redisUrl: { name: 'MARKET_DATA_REDIS_URL', sets: "the Redis the account's processes share" },
    redisCacheMb: { name: 'MARKET_DATA_REDIS_CACHE_MB', sets: "Redis's cache tier" },
    catalogRefreshS: { name: 'MARKET_DATA_CATALOG_REFRESH_S', sets: "how often the upstream's document is read" },
    accountId: { name: 'MARKET_DATA_ACCOUNT_ID', sets: 'the account keys share a gate by' },
    expectedProcesses: { name: 'MARKET_DATA_EXPECTED_PROCESSES', sets: 'processes sharing the account while Redis is away' },
  },
  /** The --http transport (http.ts). */
  http: {
    token: { name: 'MARKET_DATA_HTTP_TOKEN', sets: 'the bearer token of --http' },
    allowedHosts: { name: 'MARKET_DATA_HTTP_ALLOWED_HOSTS', sets: 'Host names --http answers to' },
    maxConnections: { name: 'MARKET_DATA_HTTP_MAX_CONNECTIONS', sets: 'connections --http holds' },
    shutdownGraceMs: { name: 'MARKET_DATA_HTTP_SHUTDOWN_GRACE_MS', sets: 'how long calls may finish after SIGTERM' },
  },
  /** Sign-in with the team's identity provider (oauth.ts). */
  oauth: {
    issuer: { name: 'MARKET_DATA_OAUTH_ISSUER', sets: "the identity provider's issuer" },
    resource: { name: 'MARKET_DATA_OAUTH_RESOURCE', sets: "this server's public /mcp URL" },
    scope: { name: 'MARKET_DATA_OAUTH_SCOPE', sets: 'the scope a token must carry' },
    jwksUrl: { name: 'MARKET_DATA_OAUTH_JWKS_URL', sets: "the issuer's signing keys" },
    tokenType: { name: 'MARKET_DATA_OAUTH_TOKEN_TYPE', sets: 'at+jwt or any' },
  },
  /** What a team server adds (team.ts). */
  team: {
    dailyUnits: { name: 'MARKET_DATA_USER_DAILY_UNITS', sets: "a member's units a day" },
    keyMapFile: { name: 'MARKET_DATA_KEY_MAP_FILE', sets: 'the sealed per-user key map' },
    keyMapSecret: { name: 'MARKET_DATA_KEY_MAP_SECRET', sets: "the key map's secret" },
    keyMapUnmapped: { name: 'MARKET_DATA_KEY_MAP_UNMAPPED', sets: 'refuse or team, for a member the map does not name' },
  },
  /** For tests and benchmarks (development.ts). */
  development: {
    simDialect: { name: 'MARKET_DATA_SIM_DIALECT', sets: "the simulator's dialect of the API" },
    v8DefaultHeap: { name: 'MARKET_DATA_V8_DEFAULT_HEAP', sets: "1: V8's own heap limit, not ours" },
  },
} as const satisfies Record<string, Record<string, EnvVar>>;

export type EnvConcern = keyof typeof TABLE;

/** Each concern as --help heads it. */
export const CONCERN_TITLES: Readonly<Record<EnvConcern, string>> = {
  core: 'the account and this server',
  http: '--http',
  oauth: '--http sign-in with an identity provider',
  team: '--http for a team',
  development: 'tests and benchmarks',
};

type Names<T extends Record<string, EnvVar>> = { readonly [K in keyof T]: T[K]['name'] };

function namesOf<T extends Record<string, EnvVar>>(group: T): Names<T> {
  return Object.fromEntries(Object.entries(group).map(([key, variable]) => [key, variable.name])) as Names<T>;
}

/** The variables of config.ts, by Config field. */
export const ENV = namesOf(TABLE.core);
export const HTTP_ENV = namesOf(TABLE.http);
export const OAUTH_ENV = namesOf(TABLE.oauth);
export const TEAM_ENV = namesOf(TABLE.team);
export const DEV_ENV = namesOf(TABLE.development);

/** Every variable, with its concern, in the table's order. */
export const ENV_VARS: readonly (EnvVar & { concern: EnvConcern })[] = Object.entries(TABLE).flatMap(([concern, group]) =>
  Object.values(group).map((variable: EnvVar) => ({ ...variable, concern: concern as EnvConcern })),
);
