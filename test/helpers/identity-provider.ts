/**
 * A real OpenID provider for the sign-in tests: oidc-provider (certified), on loopback,
 * issuing JWT access tokens (RFC 9068) for a resource indicator (RFC 8707) by the client
 * credentials grant. Nothing here makes a token by hand: every token comes from its
 * token endpoint.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';

export const SCOPE = 'market-data:read';

export interface IdentityProvider {
  issuer: string;
  /** A token from the token endpoint, for `resource`, asked with `scope` ('' asks none). */
  token(client: TestClient, resource: string, scope?: string): Promise<string>;
  close(): Promise<void>;
}

export interface TestClient {
  id: string;
  secret: string;
}

/** Members of the desk: each its own OAuth client, all allowed the server's scope. */
export const DESK: readonly TestClient[] = [
  { id: 'alice-agent', secret: 'alice-secret-0123456789abcdef' },
  { id: 'bob-agent', secret: 'bob-secret-0123456789abcdef00' },
  { id: 'carol-agent', secret: 'carol-secret-0123456789abcdef' },
  { id: 'dave-agent', secret: 'dave-secret-0123456789abcdef0' },
];
/** A client the provider never grants the server's scope. */
export const OUTSIDER: TestClient = { id: 'outsider-agent', secret: 'outsider-secret-0123456789ab' };

/** One signing key for several providers: a token of another issuer then differs only by `iss`. */
export async function signingKey(kid = 'test-key'): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
}

/** `port`: the same issuer again (a provider restarted, say with a rotated key). */
export async function startIdentityProvider(
  options: { key?: JWK; accessTokenTtlS?: number; port?: number } = {},
): Promise<IdentityProvider> {
  const key = options.key ?? (await signingKey());
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const clients = [...DESK, OUTSIDER].map((c) => ({
    client_id: c.id,
    client_secret: c.secret,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic' as const,
    scope: c === OUTSIDER ? 'openid' : SCOPE,
  }));
  const provider = new Provider(issuer, {
    clients,
    jwks: { keys: [key] },
    scopes: ['openid', SCOPE],
    ttl: { ClientCredentials: options.accessTokenTtlS ?? 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => ({
          // Only the desk's clients may have the server's scope; the outsider gets a token without it.
          scope: client.clientId === OUTSIDER.id ? '' : SCOPE,
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: options.accessTokenTtlS ?? 300,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  const handle = provider.callback();
  http.on('request', (req, res) => void handle(req, res));
  return {
    issuer,
    async token(client, resource, scope = SCOPE) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', resource });
      if (scope) body.set('scope', scope);
      const response = await fetch(new URL('/token', issuer), {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}` },
        body,
      });
      const answer = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!answer.access_token) throw new Error(`token endpoint: ${answer.error ?? response.status} ${answer.error_description ?? ''}`);
      return answer.access_token;
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
