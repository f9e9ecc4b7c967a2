/**
 * The --http server as an OAuth 2.1 resource server (MCP authorization spec): it serves
 * its Protected Resource Metadata (RFC 9728) and lets a request through only with a
 * valid access token for this resource carrying the required scope. Refusals are the
 * SDK's: 401 with `WWW-Authenticate: Bearer resource_metadata="…"` so that a client can
 * find the authorization server, 403 `insufficient_scope` naming the scope.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  verifyBearerToken,
  type AuthInfo,
  type OAuthProtectedResourceMetadata,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import type { OAuthSettings } from './settings.js';

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
  const options = {
    verifier,
    requiredScopes: [settings.scope],
    resourceMetadataUrl: metadataUrl,
    expectedResource: settings.resource,
  };
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
      try {
        return await verifyBearerToken(req.headers.authorization, options);
      } catch (error) {
        const answer = bearerAuthChallengeResponse(error, options);
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(await answer.text());
        return undefined;
      }
    },
  };
}
