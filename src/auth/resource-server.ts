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
  const challenge = (error?: { code: string; description: string }): string => {
    const params: [string, string][] = [
      ...(error
        ? ([
            ['error', error.code],
            ['error_description', error.description],
          ] as [string, string][])
        : []),
      ['scope', settings.scope],
      ['resource_metadata', metadataUrl],
    ];
    return `Bearer ${params.map(([name, value]) => `${name}="${value.replace(/["\\]/g, '')}"`).join(', ')}`;
  };
  const refuse = (res: ServerResponse, status: number, headers: Record<string, string>, body: Record<string, unknown>): undefined => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    return undefined;
  };
  const refuseToken = (res: ServerResponse, status: 400 | 401 | 403, code: string, description: string): undefined =>
    refuse(res, status, { 'www-authenticate': challenge({ code, description }) }, { error: code, error_description: description });
  return {
    metadataUrl,
    serveMetadata(req, res) {
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
    },
    async authenticate(req, res) {
      const header = req.headers.authorization;
      // No credentials, or another scheme: the challenge alone (RFC 6750 section 3.1).
      if (!header || !/^bearer(\s|$)/i.test(header))
        return refuse(
          res,
          401,
          { 'www-authenticate': challenge() },
          { error: 'unauthorized', error_description: 'This server needs an OAuth access token (Authorization: Bearer).' },
        );
      const token = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)?.[1];
      if (!token) return refuseToken(res, 400, 'invalid_request', 'the Authorization header is not "Bearer <token>"');
      let info: AuthInfo;
      try {
        info = await verifier.verifyAccessToken(token);
      } catch (error) {
        if (error instanceof IssuerUnavailableError)
          return refuse(
            res,
            503,
            { 'retry-after': String(error.retryAfterSeconds) },
            {
              error: 'temporarily_unavailable',
              error_description: `The identity provider's signing keys cannot be read now, so the token could not be checked (it was not refused). Try again in ${error.retryAfterSeconds} s.`,
            },
          );
        if (error instanceof OAuthError && error.code === String(OAuthErrorCode.InvalidToken))
          return refuseToken(res, 401, 'invalid_token', error.message);
        return refuse(res, 500, {}, { error: 'server_error', error_description: 'the token could not be checked' });
      }
      if (!sameResource(info.resource, settings.resource))
        return refuseToken(res, 401, 'invalid_token', 'the token was not issued for this resource');
      if (!info.scopes.includes(settings.scope))
        return refuseToken(res, 403, 'insufficient_scope', `the token lacks the scope "${settings.scope}"`);
      return { ...info, resourceMetadataUrl: metadataUrl };
    },
  };
}

/** The token's resource names this server (jose already held `aud` to it). */
function sameResource(resource: URL | undefined, expected: URL): boolean {
  return resource === undefined || resource.href === expected.href;
}
