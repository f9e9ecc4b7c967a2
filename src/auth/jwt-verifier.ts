/**
 * Checks a JWT access token (RFC 9068) the way a resource server must: a signature by
 * one of the issuer's current keys (its JWKS, issuer-keys.ts), the exact issuer, this
 * server as the audience (RFC 8707), exp and nbf with the same tolerance for clock skew,
 * and the token type `at+jwt` (unless the operator says the provider's access tokens do
 * not carry it). jose does the cryptography; only asymmetric algorithms are accepted, so
 * neither `alg: none` nor a token signed with a public key taken for an HMAC secret can
 * pass. Keys that cannot be read are the provider's trouble, not the token's:
 * IssuerUnavailableError, which the door answers 503.
 */
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { IssuerKeys, IssuerUnavailableError, noMatchingKey } from './issuer-keys.js';
import type { OAuthSettings } from '../config/oauth.js';

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Clocks of the nodes and of the identity provider differ by a little: the same allowance at both ends of a token's life. */
export const CLOCK_TOLERANCE_S = 5;

export interface JwtVerifierOptions {
  settings: OAuthSettings;
  /** Tests move time; production reads the system clock. */
  now?: () => number;
  fetch?: typeof fetch;
}

/** Who made a call, as the rest of the server sees it (never the token itself). */
export interface CallerClaims {
  subject: string;
  clientId: string;
}

export class JwtAccessTokenVerifier implements OAuthTokenVerifier {
  private readonly keys: IssuerKeys;
  private readonly now: () => number;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: JwtVerifierOptions) {
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? fetch;
    this.keys = new IssuerKeys({ locate: () => this.discoverJwksUrl(), fetch: this.fetch, now: this.now });
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const { settings } = this.options;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys.key, {
        issuer: settings.issuer,
        audience: settings.resource.href,
        algorithms: ASYMMETRIC,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.now()),
        ...(settings.tokenType === 'at+jwt' ? { typ: 'at+jwt' } : {}),
      }));
    } catch (error) {
      if (error instanceof IssuerUnavailableError) throw error;
      throw refusal(error);
    }
    const subject = String(payload.sub);
    const clientId = stringClaim(payload, 'client_id') ?? stringClaim(payload, 'azp') ?? subject;
    const extra: CallerClaims = { subject, clientId };
    return {
      token,
      clientId,
      scopes: scopesOf(payload),
      expiresAt: Number(payload.exp),
      // jose checked `aud` against this very URL: the SDK compares it once more with the expected resource.
      resource: settings.resource,
      extra: { ...extra },
    };
  }

  /**
   * For /readyz: the issuer's keys can be fetched now. A node that cannot check a token
   * (the identity provider or its JWKS unreachable) refuses every caller, so it is not ready.
   */
  keysReachable(): Promise<{ ok: boolean; detail: string }> {
    return this.keys.check();
  }

  private async discoverJwksUrl(): Promise<URL> {
    const { issuer, jwksUrl } = this.options.settings;
    if (jwksUrl) return jwksUrl;
    for (const url of metadataUrls(issuer)) {
      const response = await this.fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5000) }).catch(
        () => undefined,
      );
      if (!response?.ok) {
        await response?.body?.cancel();
        continue;
      }
      const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      // RFC 8414 section 3.3: metadata naming another issuer must not be used.
      if (metadata.issuer !== issuer || typeof metadata.jwks_uri !== 'string') continue;
      return new URL(metadata.jwks_uri);
    }
    throw new Error(`the issuer's metadata (and its jwks_uri) could not be read from ${issuer}`);
  }
}

/** RFC 8414 (path inserted after the well-known prefix), then OpenID Connect Discovery (appended). */
function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, url.origin),
    new URL(`${path}/.well-known/openid-configuration`, url.origin),
  ];
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `scope` (RFC 9068, space-separated) or `scp` (an array, as some providers send it). */
function scopesOf(payload: JWTPayload): string[] {
  const scope = payload['scope'];
  if (typeof scope === 'string') return scope.split(' ').filter(Boolean);
  const scp = payload['scp'];
  return Array.isArray(scp) ? scp.filter((s): s is string => typeof s === 'string') : [];
}

/** What the client is told in error_description: which check failed, never the token. */
function refusal(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (error instanceof errors.JWTExpired) return new OAuthError(OAuthErrorCode.InvalidToken, 'the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    const claim = error.claim;
    const reason =
      claim === 'aud'
        ? 'the token was issued for another resource (aud)'
        : claim === 'iss'
          ? 'the token was issued by another issuer (iss)'
          : claim === 'nbf'
            ? 'the token is not valid yet (nbf)'
            : claim === 'typ'
              ? 'the token is not an access token (its typ is not at+jwt, RFC 9068)'
              : `the token's "${claim}" claim is missing or invalid`;
    return new OAuthError(OAuthErrorCode.InvalidToken, reason);
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new OAuthError(OAuthErrorCode.InvalidToken, 'the token is not signed with an accepted algorithm');
  if (error instanceof errors.JWSSignatureVerificationFailed || noMatchingKey(error))
    return new OAuthError(OAuthErrorCode.InvalidToken, "the token's signature does not match the issuer's keys");
  return new OAuthError(OAuthErrorCode.InvalidToken, 'the token is not a valid signed JWT');
}
