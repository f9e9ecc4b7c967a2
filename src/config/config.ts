/**
 * One validated Config from the environment and the command line. A problem names the
 * variable and the fix; the API key is never echoed, whatever else is printed.
 */
import * as z from 'zod';
import { LOG_LEVELS } from '../log.js';
import { ENV } from './env-vars.js';
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
  { message: 'must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379' },
);

/** A comma-separated list, as a flag or a host's env block gives it. */
const nameList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

const integer = (min: number, max: number): z.ZodCoercedNumber => z.coerce.number().int().min(min).max(max);

export const ConfigSchema = z.object({
  /** Never printed. Absent: the server still starts and data tools answer CONFIG_INVALID. */
  apiKey: z
    .string()
    .trim()
    .min(8, 'looks too short for an API key')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
  baseUrl: baseUrl.optional(),
  logLevel: z.enum(LOG_LEVELS).default('info'),
  /** Every tool call answers within this, a bit under the 60 s hosts commonly allow. */
  deadlineMs: integer(1000, 600_000).default(50_000),
  maxResponseBytes: integer(1024, 256 * 1024 * 1024).default(8 * 1024 * 1024),
  cacheEntries: integer(0, 100_000).default(500),
  /** Toolsets to offer (`all` and `default` name every one); unknown names are warned about in src/mcp/tools/selection.ts. */
  toolsets: nameList.optional(),
  /** Single tools to offer, besides the toolsets named (GitHub's and Stripe's `--tools`). */
  tools: nameList.optional(),
  /** Tools left out of whatever the toolsets and tools above offer. */
  excludeTools: nameList.optional(),
  resultTokens: integer(500, 200_000).default(8000),
  demo: z.boolean().default(false),
  cacheDir: z.string().optional(),
  redisUrl: redisUrl.optional(),
  /** What the account's answers may hold together in Redis's cache tier. */
  redisCacheMb: integer(1, 65_536).default(64),
  /** How often the upstream's openapi.json is read again (free of quota). */
  catalogRefreshS: integer(1, 86_400).default(900),
  /** The upstream account the key belongs to: keys of one account then share one gate on Redis. */
  accountId: z.string().trim().min(1).max(200).optional(),
  /** While Redis is away, each process of the account leaves room for at least this many (src/redis/outage-part.ts). */
  expectedProcesses: integer(1, 1000).optional(),
});

export type Config = z.infer<typeof ConfigSchema>;

export interface ConfigProblem {
  readonly variable: string;
  readonly message: string;
}

/**
 * `ok: false` only when the key or the base URL is unusable: data calls then answer
 * CONFIG_INVALID (unless demo mode, which needs neither). Every other invalid variable
 * falls back to its default and is reported in `warnings`; `config` always holds what
 * was valid, so one typo never discards the key, the URL or demo mode.
 */
export type ConfigResult =
  | { ok: true; config: Config; warnings: ConfigProblem[] }
  | { ok: false; config: Config; problems: ConfigProblem[]; warnings: ConfigProblem[] };

/** Fields without which no data call can be made; the others have safe defaults. */
const ESSENTIAL: ReadonlySet<string> = new Set(['apiKey', 'baseUrl']);

/**
 * A value that is only a host's placeholder (`${user_config.base_url}` left by the MCPB
 * tooling for an unset optional field, `${input:key}` or `${env:X}` from other hosts) was
 * never meant as a value: it counts as unset, like "".
 */
export function isUnsubstitutedPlaceholder(value: string): boolean {
  return /^\$\{[^}]*\}$/.test(value.trim());
}

/** Flags win over the environment. Empty variables and unsubstituted placeholders count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv, flags: Partial<Record<keyof Config, unknown>> = {}): ConfigResult {
  const raw: Record<string, unknown> = {};
  for (const [field, variable] of Object.entries(ENV)) {
    const value = env[variable];
    if (value !== undefined && value.trim() !== '' && !isUnsubstitutedPlaceholder(value)) raw[field] = value;
  }
  if (typeof raw['demo'] === 'string') raw['demo'] = ['1', 'true', 'yes'].includes(String(raw['demo']).toLowerCase());
  for (const [field, value] of Object.entries(flags)) if (value !== undefined) raw[field] = value;

  const problems: ConfigProblem[] = [];
  const warnings: ConfigProblem[] = [];
  const first = ConfigSchema.safeParse(raw);
  if (first.success) return { ok: true, config: first.data, warnings: [...warnings, ...baseUrlWarnings(first.data)] };
  // Drop each invalid field so that the rest parse; report it by its variable.
  const invalid = new Set<string>();
  for (const issue of first.error.issues) {
    const field = String(issue.path[0] ?? '');
    if (invalid.has(field)) continue;
    invalid.add(field);
    const variable = ENV[field as keyof typeof ENV] ?? field;
    // zod messages can quote the input; for the key, say only what is wrong.
    const reason = field === 'apiKey' ? 'is not a valid API key' : issue.message;
    const bound = CLAMPED.has(field) ? boundOf(issue) : undefined;
    if (bound !== undefined) {
      // Out of range: the nearest value allowed is closer to what was asked than the default.
      warnings.push({ variable, message: `${variable} ${reason}; using ${bound}` });
      raw[field] = bound;
      continue;
    }
    if (ESSENTIAL.has(field)) problems.push({ variable, message: `${variable} ${reason}` });
    else warnings.push({ variable, message: `${variable} ${reason}; using the default (${defaultOf(field)})` });
    delete raw[field];
  }
  const config = ConfigSchema.parse(raw);
  warnings.push(...baseUrlWarnings(config));
  return problems.length > 0 ? { ok: false, config, problems, warnings } : { ok: true, config, warnings };
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

/**
 * Settings whose nearest allowed value is closer to what was asked than the default: a
 * 700 ms deadline means "short", not 50 s. (A cache size of -1 is not read as "off".)
 */
const CLAMPED: ReadonlySet<string> = new Set(['deadlineMs']);

/** The limit a number crossed (too small or too large), when that was its only fault. */
function boundOf(issue: z.core.$ZodIssue): number | undefined {
  if (issue.code === 'too_small' && issue.origin === 'number') return Number(issue.minimum);
  if (issue.code === 'too_big' && issue.origin === 'number') return Number(issue.maximum);
  return undefined;
}

function defaultOf(field: string): string {
  const value = (ConfigSchema.parse({}) as Record<string, unknown>)[field];
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : 'unset';
}

/** What a data call needs and is missing, as the fix a user can apply. */
export function missingForData(config: Config): string | undefined {
  if (config.demo) return undefined;
  const missing = [!config.apiKey && ENV.apiKey, !config.baseUrl && ENV.baseUrl].filter(Boolean);
  if (missing.length === 0) return undefined;
  return `Set ${missing.join(' and ')} in the MCP server's environment (your host's server config), or start it with --demo to use the built-in simulator.`;
}
