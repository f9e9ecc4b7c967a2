/**
 * Sign-in with the team's identity provider: the --http server as an OAuth 2.1 resource
 * server (MCP authorization spec). Configured from the environment; absent, the static
 * bearer token of one user (MARKET_DATA_HTTP_TOKEN) stays the way in.
 */
import * as z from 'zod';
import { OAUTH_ENV } from './env-vars.js';
import { readSection, setValues } from './section.js';
import { secureUrl } from './secure-url.js';

/** The scope a token must carry to call this server, unless the operator names another. */
export const DEFAULT_SCOPE = 'market-data:read';

export interface OAuthSettings {
  /** The authorization server's issuer identifier, compared exactly with `iss`. */
  issuer: string;
  /** This server's public MCP URL: its RFC 8707 resource identifier, compared with `aud`. */
  resource: URL;
  scope: string;
  /** Where the issuer's signing keys are; discovered from its metadata when unset. */
  jwksUrl: URL | undefined;
  /**
   * `at+jwt`: access tokens must say so in their `typ` header (RFC 9068, so that no other
   * JWT of the provider's passes for one); `any` for providers whose access tokens say `JWT`.
   */
  tokenType: 'at+jwt' | 'any';
}

const url = secureUrl();

/** Optional here so that a bad value is said as a problem, not thrown; oauthSettings requires both. */
const schema = z.object({
  issuer: url.optional(),
  resource: url.optional(),
  scope: z
    .string()
    .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'is not one scope token (RFC 6749 section 3.3)')
    .default(DEFAULT_SCOPE),
  jwksUrl: url.optional(),
  tokenType: z.enum(['at+jwt', 'any'], { error: 'is neither at+jwt (RFC 9068, the default) nor any' }).default('at+jwt'),
});

/**
 * Undefined when no issuer is set (static-token mode). A half configuration (an issuer
 * without the resource URL, a bad value) is a problem: the server must not start open.
 */
export function oauthSettings(env: NodeJS.ProcessEnv): { ok: true; settings: OAuthSettings | undefined } | { ok: false; problem: string } {
  const raw: Partial<Record<keyof typeof OAUTH_ENV, string>> = {};
  for (const [field, value] of Object.entries(setValues(env, OAUTH_ENV))) raw[field as keyof typeof OAUTH_ENV] = value.trim();
  if (Object.keys(raw).length === 0) return { ok: true, settings: undefined };
  if (!raw['issuer']) return { ok: false, problem: `${OAUTH_ENV.issuer} is required when any MARKET_DATA_OAUTH_* variable is set.` };
  if (!raw['resource'])
    return {
      ok: false,
      problem: `${OAUTH_ENV.resource} is required with ${OAUTH_ENV.issuer}: the public URL of this server's /mcp endpoint.`,
    };
  const read = readSection(schema, raw, {
    names: OAUTH_ENV,
    shown: { issuer: 'url', resource: 'url', jwksUrl: 'url' },
    // Any of them wrong and the server would start open, or refuse every member.
    essential: new Set(['issuer', 'resource', 'scope', 'jwksUrl', 'tokenType']),
  });
  const [problem] = read.problems;
  if (problem) return { ok: false, problem: problem.message };
  const { resource, scope, jwksUrl, tokenType } = read.settings;
  // Checked above; the schema cannot say it.
  if (resource === undefined) return { ok: false, problem: `${OAUTH_ENV.resource} is required with ${OAUTH_ENV.issuer}.` };
  // The issuer identifier is compared with `iss` as a string: kept exactly as configured.
  return { ok: true, settings: Object.freeze({ issuer: raw['issuer'], resource, scope, jwksUrl, tokenType }) };
}
