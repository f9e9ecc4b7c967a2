/**
 * One validated Config from the environment and the command line. A problem names the
 * variable and the fix; the API key is never echoed, whatever else is printed.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { LOG_LEVELS } from '../log.js';
import { ENV } from './env-vars.js';
import { readSection, setValues, wholeNumber, type ConfigProblem, type SectionRules } from './section.js';
import { secureUrl } from './secure-url.js';

/** The API's root as the server joins paths to it: no trailing slash. */
const baseUrl = secureUrl({
  example: 'https://api.example.com',
  noQuery: `; the key goes in ${ENV.apiKey}`,
}).transform((url) => url.origin + url.pathname.replace(/\/+$/, ''));

/**
 * The API's root for a base URL that names its version (`…/v1`) or one of its paths
 * (`…/v1/discover`): every path the server asks already starts with /v1, so such a URL
 * reads /v1/v1/discover, which answers NOT_FOUND as if the key were wrong. Undefined when
 * the URL names no /v1.
 */
export function apiRootOf(baseUrl: string): string | undefined {
  const url = new URL(baseUrl);
  const at = url.pathname.search(/\/v1(\/|$)/);
  return at < 0 ? undefined : url.origin + url.pathname.slice(0, at);
}

/** Every process of an account shares its limits and cache through this Redis. The URL may hold a password: never echoed. */
const redisUrl = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
    } catch {
      return false;
    }
  },
  { message: 'is not a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379' },
);

/** A comma-separated list, as a flag or a host's env block gives it. */
const nameList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** What MARKET_DATA_DEMO may say, either way; any other word is said at start, not read as off. */
const DEMO_WORDS = { on: ['1', 'true', 'yes', 'on'], off: ['0', 'false', 'no', 'off'] } as const;

/** The variable's word as a switch; a word that is neither is left as given, for the section to say. */
function demoSwitch(value: string): boolean | string {
  const word = value.trim().toLowerCase();
  if ((DEMO_WORDS.on as readonly string[]).includes(word)) return true;
  if ((DEMO_WORDS.off as readonly string[]).includes(word)) return false;
  return value;
}

export const ConfigSchema = z.object({
  /** Never printed. Absent: the server still starts and data tools answer CONFIG_INVALID. */
  apiKey: z
    .string()
    .trim()
    .min(8, 'is too short for an API key (8 characters or more)')
    .regex(/^[\x21-\x7e]+$/, 'is not an API key: it must be printable ASCII without spaces')
    .optional(),
  baseUrl: baseUrl.optional(),
  /** Any case (`WARN`, `Warn`): a level is a word, and pino only knows it in lower case. */
  logLevel: z
    .preprocess(
      (value) => (typeof value === 'string' ? value.toLowerCase() : value),
      z.enum(LOG_LEVELS, { error: `is not a log level (${LOG_LEVELS.join(', ')})` }),
    )
    .default('info'),
  /** Every tool call answers within this, a bit under the 60 s hosts commonly allow. */
  deadlineMs: wholeNumber('milliseconds', 1000, 600_000).default(50_000),
  maxResponseBytes: wholeNumber('bytes', 1024, 256 * 1024 * 1024).default(8 * 1024 * 1024),
  cacheEntries: wholeNumber('entries', 0, 100_000).default(500),
  /** Toolsets to offer (`all` and `default` name every one); unknown names are warned about in src/mcp/tools/selection.ts. */
  toolsets: nameList.optional(),
  /** Single tools to offer, besides the toolsets named (GitHub's and Stripe's `--tools`). */
  tools: nameList.optional(),
  /** Tools left out of whatever the toolsets and tools above offer. */
  excludeTools: nameList.optional(),
  resultTokens: wholeNumber('tokens', 500, 200_000).default(8000),
  demo: z.boolean({ error: `is neither on (${DEMO_WORDS.on.join(', ')}) nor off (${DEMO_WORDS.off.join(', ')})` }).default(false),
  /** Where the upstream's document is kept; loadConfig fills in the user's cache folder when unset. */
  cacheDir: z.string().optional(),
  redisUrl: redisUrl.optional(),
  /** What the account's answers may hold together in Redis's cache tier. */
  redisCacheMb: wholeNumber('MB', 1, 65_536).default(64),
  /** How often the upstream's openapi.json is read again (free of quota). */
  catalogRefreshS: wholeNumber('seconds', 1, 86_400).default(900),
  /** The upstream account the key belongs to: keys of one account then share one gate on Redis. */
  accountId: z.string().trim().min(1, 'is empty').max(200, 'is longer than an account name (200 characters at most)').optional(),
  /** While Redis is away, each process of the account leaves room for at least this many (src/redis/outage-part.ts). */
  expectedProcesses: wholeNumber('processes', 1, 1000).optional(),
});

export type Config = z.infer<typeof ConfigSchema>;

export type { ConfigProblem } from './section.js';
export { isUnsubstitutedPlaceholder } from './section.js';

/**
 * `ok: false` only when the key or the base URL is unusable: data calls then answer
 * CONFIG_INVALID (unless demo mode, which needs neither). Every other invalid variable
 * falls back to its default and is reported in `warnings`; `config` always holds what
 * was valid, so one typo never discards the key, the URL or demo mode.
 */
export type ConfigResult =
  | { ok: true; config: Config; warnings: ConfigProblem[] }
  | { ok: false; config: Config; problems: ConfigProblem[]; warnings: ConfigProblem[] };

const RULES: SectionRules<keyof Config> = {
  names: ENV,
  // The key is named, never shown; a URL is shown without what may be a password or a key.
  shown: { apiKey: 'secret', baseUrl: 'url', redisUrl: 'url' },
  // A 700 ms deadline means "short", not 50 s; a 300-token result budget means "small", not
  // 8000. (A cache size of -1 is not read as "off".)
  clamped: new Set(['deadlineMs', 'resultTokens']),
  // Without them no data call can be made; the others have safe defaults.
  essential: new Set(['apiKey', 'baseUrl']),
};

/** Flags win over the environment. Empty variables and unsubstituted placeholders count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv, flags: Partial<Record<keyof Config, unknown>> = {}): ConfigResult {
  const raw: Record<string, unknown> = setValues(env, ENV);
  if (typeof raw['demo'] === 'string') raw['demo'] = demoSwitch(raw['demo']);
  for (const [field, value] of Object.entries(flags)) if (value !== undefined) raw[field] = value;
  const read = readSection(ConfigSchema, raw, RULES);
  const config: Config = Object.freeze({ ...read.settings, cacheDir: read.settings.cacheDir ?? userCacheDir(env) });
  const warnings = [...read.warnings, ...baseUrlWarnings(config)];
  return read.problems.length > 0 ? { ok: false, config, problems: read.problems, warnings } : { ok: true, config, warnings };
}

/** The user's cache folder as the XDG base directory specification names it (XDG_CACHE_HOME, else ~/.cache). */
function userCacheDir(env: NodeJS.ProcessEnv): string {
  const home = env['XDG_CACHE_HOME']?.trim();
  return join(home || join(homedir(), '.cache'), 'market-data-mcp');
}

/** Said at start, and in api_status: the first call would fail as NOT_FOUND and blame the key. */
function baseUrlWarnings(config: Config): ConfigProblem[] {
  const root = config.baseUrl === undefined ? undefined : apiRootOf(config.baseUrl);
  if (root === undefined || config.baseUrl === undefined) return [];
  const named = config.baseUrl.slice(root.length);
  return [
    {
      variable: ENV.baseUrl,
      message: `${ENV.baseUrl} ends in ${named}, but the server puts /v1 in front of every path itself (it would ask ${config.baseUrl}/v1/discover): set it to the API's root, ${root}.`,
    },
  ];
}

/** What a data call needs and is missing, as the fix a user can apply. */
export function missingForData(config: Config): string | undefined {
  if (config.demo) return undefined;
  const missing = [!config.apiKey && ENV.apiKey, !config.baseUrl && ENV.baseUrl].filter(Boolean);
  if (missing.length === 0) return undefined;
  return `Set ${missing.join(' and ')} in the MCP server's environment (your host's server config), or start it with --demo to use the built-in simulator.`;
}
