/**
 * The --http server as an OAuth 2.1 resource server (MCP authorization spec): it serves
 * its Protected Resource Metadata (RFC 9728) and lets a request through only with a
 * valid access token for this resource carrying the required scope. Refusals follow
 * RFC 6750 section 3 to the letter: a request without credentials gets a challenge with
 * no error code (`invalid_token` is for a token that was sent), a malformed Authorization
 * header 400 `invalid_request`, a bad token 401 `invalid_token`, a good token without the
 * scope 403 `insufficient_scope`; each challenge names `resource_metadata` so that a client
 * finds the authorization server. The identity provider in trouble (its keys unreadable)
 * is not the token's fault: 503 with Retry-After.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  type AuthInfo,
  type OAuthProtectedResourceMetadata,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { IssuerUnavailableError } from './issuer-keys.js';
import type { OAuthSettings } from '../config/oauth.js';

export interface ResourceServer {
  /** Where the metadata document is served (RFC 9728 section 3.1, and the root form older clients probe). */
  readonly metadataUrl: string;
  /** Answers a metadata request and returns true, or returns false for any other path. */
  serveMetadata(req: IncomingMessage, res: ServerResponse): boolean;
  /** The verified token's AuthInfo, or undefined once the refusal has been written to `res`. */
  authenticate(req: IncomingMessage, res: ServerResponse): Promise<AuthInfo | undefined>;
}

export function protectedResourceMetadata(settings: OAuthSettings): OAuthProtectedResourceMetadata {
  return {
    resource: settings.resource.href,
    authorization_servers: [settings.issuer],
    scopes_supported: [settings.scope],
    bearer_methods_supported: ['header'],
    resource_name: 'Market Data MCP',
  };
}

export function createResourceServer(settings: OAuthSettings, verifier: OAuthTokenVerifier): ResourceServer {
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(settings.resource);
  const document = JSON.stringify(protectedResourceMetadata(settings));
  const paths = new Set([new URL(metadataUrl).pathname, '/.well-known/oauth-protected-resource']);
  const resource: ThisResource = { settings, metadataUrl };
  return {
    metadataUrl,
    serveMetadata: (req, res) => serveMetadataDocument(req, res, paths, document),
    async authenticate(req, res) {
      const checked = await checkAuthorization(req.headers.authorization, resource, verifier);
      if ('admitted' in checked) return checked.admitted;
      const { status, headers, body } = checked.refused;
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      return undefined;
    },
  };
}

/** What a challenge names: the scope this server needs and where its metadata is. */
interface ThisResource {
  readonly settings: OAuthSettings;
  readonly metadataUrl: string;
}

/** An answer refusing a request: its status, headers beside the JSON type, and its JSON body. */
interface Refusal {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

type AuthorizationCheck = { admitted: AuthInfo } | { refused: Refusal };

function serveMetadataDocument(req: IncomingMessage, res: ServerResponse, paths: ReadonlySet<string>, document: string): boolean {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (!paths.has(path)) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end();
    return true;
  }
  // Public and the same for everyone: browsers' clients may read it cross-origin.
  res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'cache-control': 'max-age=3600' });
  res.end(req.method === 'HEAD' ? undefined : document);
  return true;
}

async function checkAuthorization(
  header: string | undefined,
  resource: ThisResource,
  verifier: OAuthTokenVerifier,
): Promise<AuthorizationCheck> {
  // No credentials, or another scheme: the challenge alone (RFC 6750 section 3.1).
  if (!header || !/^bearer(\s|$)/i.test(header))
    return {
      refused: {
        status: 401,
        headers: { 'www-authenticate': challenge(resource) },
        body: { error: 'unauthorized', error_description: 'This server needs an OAuth access token (Authorization: Bearer).' },
      },
    };
  const token = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)?.[1];
  if (!token) return tokenRefused(resource, 400, 'invalid_request', 'the Authorization header is not "Bearer <token>"');
  let info: AuthInfo;
  try {
    info = await verifier.verifyAccessToken(token);
  } catch (error) {
    return { refused: verificationFailed(error, resource) };
  }
  const { settings, metadataUrl } = resource;
  if (!sameResource(info.resource, settings.resource))
    return tokenRefused(resource, 401, 'invalid_token', 'the token was not issued for this resource');
  if (!info.scopes.includes(settings.scope))
    return tokenRefused(resource, 403, 'insufficient_scope', `the token lacks the scope "${settings.scope}"`);
  return { admitted: { ...info, resourceMetadataUrl: metadataUrl } };
}

/** A token that could not be verified: the identity provider in trouble, a bad token, or this server's own failure. */
function verificationFailed(error: unknown, resource: ThisResource): Refusal {
  if (error instanceof IssuerUnavailableError)
    return {
      status: 503,
      headers: { 'retry-after': String(error.retryAfterSeconds) },
      body: {
        error: 'temporarily_unavailable',
        error_description: `The identity provider's signing keys cannot be read now, so the token could not be checked (it was not refused). Try again in ${error.retryAfterSeconds} s.`,
      },
    };
  if (error instanceof OAuthError && error.code === String(OAuthErrorCode.InvalidToken))
    return tokenRefused(resource, 401, 'invalid_token', error.message).refused;
  return { status: 500, headers: {}, body: { error: 'server_error', error_description: 'the token could not be checked' } };
}

/** A sent token refused: the challenge names the error (RFC 6750 section 3.1), and the body says it too. */
function tokenRefused(resource: ThisResource, status: 400 | 401 | 403, code: string, description: string): { refused: Refusal } {
  return {
    refused: {
      status,
      headers: { 'www-authenticate': challenge(resource, { code, description }) },
      body: { error: code, error_description: description },
    },
  };
}

function challenge(resource: ThisResource, error?: { code: string; description: string }): string {
  const params: [string, string][] = [
    ...(error
      ? ([
          ['error', error.code],
          ['error_description', error.description],
        ] as [string, string][])
      : []),
    ['scope', resource.settings.scope],
    ['resource_metadata', resource.metadataUrl],
  ];
  return `Bearer ${params.map(([name, value]) => `${name}="${value.replace(/["\\]/g, '')}"`).join(', ')}`;
}

/** The token's resource names this server (jose already held `aud` to it). */
function sameResource(resource: URL | undefined, expected: URL): boolean {
  return resource === undefined || resource.href === expected.href;
}
