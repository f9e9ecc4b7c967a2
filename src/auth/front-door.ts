/**
 * Everything the --http server does before a request reaches MCP: the endpoints open to
 * anyone (the protected resource metadata, health, readiness, metrics), then the guard
 * (static token or OAuth). Built once at start from the configuration.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { oauthGuard, staticTokenGuard, type HttpGuard } from './http-guard.js';
import { JwtAccessTokenVerifier } from './jwt-verifier.js';
import { answerNoOAuthDiscovery } from './no-oauth-discovery.js';
import { createResourceServer } from './resource-server.js';
import { OAUTH_ENV } from '../config/env-vars.js';
import type { OAuthSettings } from '../config/oauth.js';

/** An endpoint answered without a token: true when it took the request. */
export type OpenEndpoint = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface FrontDoor {
  open: OpenEndpoint;
  admit: HttpGuard;
  /** Start-up lines telling the operator how clients sign in. */
  describe(): string[];
}

export interface FrontDoorOptions {
  /** The static token's check (transports/http-auth.ts), used when OAuth is not configured. */
  staticToken: (req: IncomingMessage, res: ServerResponse) => boolean;
  oauth?: OAuthSettings | undefined;
  /** Tests swap the verifier's clock; production builds it from the settings. */
  verifier?: OAuthTokenVerifier | undefined;
  endpoints?: readonly OpenEndpoint[] | undefined;
}

export function createFrontDoor(options: FrontDoorOptions): FrontDoor {
  const endpoints = [...(options.endpoints ?? [])];
  const oauth = options.oauth;
  if (!oauth) {
    return {
      // A host probing for OAuth is told there is none (404), not refused (401) as if it could sign in.
      open: (req, res) => answerNoOAuthDiscovery(req, res) || endpoints.some((serve) => serve(req, res)),
      admit: staticTokenGuard(options.staticToken),
      describe: () => [],
    };
  }
  const resourceServer = createResourceServer(oauth, options.verifier ?? new JwtAccessTokenVerifier({ settings: oauth }));
  endpoints.unshift((req, res) => resourceServer.serveMetadata(req, res));
  return {
    open: (req, res) => endpoints.some((serve) => serve(req, res)),
    admit: oauthGuard(resourceServer),
    describe: () => [
      `Sign-in: OAuth access tokens from ${oauth.issuer} for ${oauth.resource.href} with scope "${oauth.scope}" (${OAUTH_ENV.issuer}).`,
      `Protected resource metadata: ${resourceServer.metadataUrl}`,
    ],
  };
}
