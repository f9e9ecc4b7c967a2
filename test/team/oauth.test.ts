import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ClientCredentialsProvider, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { DESK, OUTSIDER, SCOPE, signingKey, startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider.js';
import { freePort, serveHttp, type Served } from '../helpers/team-serve.js';

const API_KEY = 'team-account-key-0001';

/** A request to /mcp as any HTTP client would send it, with the given Authorization. */
async function post(url: string, authorization: string | undefined): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

/** The parameters of a `WWW-Authenticate: Bearer k="v", ...` challenge. */
function challenge(response: Response): Record<string, string> {
  const header = response.headers.get('www-authenticate') ?? '';
  assert.match(header, /^Bearer /, 'a Bearer challenge');
  return Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
}

describe('--http as an OAuth resource server, with a real identity provider', () => {
  let idp: IdentityProvider;
  let otherIssuer: IdentityProvider;
  let upstream: FakeUpstream;
  let server: Served;
  let resource: string;

  before(async () => {
    const key = await signingKey();
    idp = await startIdentityProvider({ key });
    // Same signing key, another issuer: its tokens differ from idp's only by `iss`.
    otherIssuer = await startIdentityProvider({ key });
    upstream = await startFakeUpstream();
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    server = await serveHttp(port, {
      MARKET_DATA_OAUTH_ISSUER: idp.issuer,
      MARKET_DATA_OAUTH_RESOURCE: resource,
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: API_KEY,
    });
  });
  after(async () => {
    await server.stop();
    await Promise.all([idp.close(), otherIssuer.close(), upstream.close()]);
  });

  test("the SDK client signs in with its own OAuth support, lists the tools and calls one; the upstream sees only the account's key", async () => {
    const member = DESK[0];
    assert.ok(member);
    const client = new Client({ name: 'desk-agent', version: '1.0.0' });
    const authProvider = new ClientCredentialsProvider({
      clientId: member.id,
      clientSecret: member.secret,
      scope: SCOPE,
      expectedIssuer: idp.issuer,
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider }));
    const { tools } = await client.listTools();
    assert.ok(
      tools.some((t) => t.name === 'shorts_short_screener'),
      'the data tools are listed',
    );
    const before = upstream.dataRequests().length;
    const result = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    const token = authProvider.tokens()?.access_token;
    assert.ok(token, 'the client holds the token it got from the identity provider');
    assert.equal(decodeJwt(token).aud, resource, 'the token was issued for this server (RFC 8707 resource)');
    const sent = upstream.requests.slice(0);
    assert.ok(upstream.dataRequests().length > before, 'the call reached the upstream');
    for (const request of sent) {
      assert.equal(request.authorization, `Bearer ${API_KEY}`, `${request.path} carried the account's key`);
      assert.ok(!JSON.stringify(request).includes(token), 'the MCP token never reaches the upstream');
    }
    await client.close();
  });

  test('the protected resource metadata matches RFC 9728 and is the one the 401 challenge names', async () => {
    const refused = await post(server.url, undefined);
    assert.equal(refused.status, 401);
    const { resource_metadata: metadataUrl } = challenge(refused);
    assert.ok(metadataUrl, 'the challenge names the metadata document');
    assert.equal(
      new URL(metadataUrl).pathname,
      '/.well-known/oauth-protected-resource/mcp',
      'path-aware well-known URL (RFC 9728 section 3.1)',
    );
    const response = await fetch(metadataUrl);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const document = (await response.json()) as Record<string, unknown>;
    assert.equal(document['resource'], resource, 'resource is exactly the URL the client connected to (section 3.3)');
    assert.deepEqual(document['authorization_servers'], [idp.issuer]);
    assert.ok(Array.isArray(document['scopes_supported']) && document['scopes_supported'].includes(SCOPE));
    assert.deepEqual(document['bearer_methods_supported'], ['header']);
  });

  const refusals: [string, (ctx: { idp: IdentityProvider; other: IdentityProvider; resource: string }) => Promise<string>, RegExp][] = [
    ['a token for another resource (aud)', ({ idp }) => idp.token(DESK[0] ?? OUTSIDER, 'http://127.0.0.1:1/other-mcp'), /another resource/],
    [
      'a token of another issuer (iss), signed by the same key',
      ({ other, resource }) => other.token(DESK[0] ?? OUTSIDER, resource),
      /another issuer/,
    ],
    [
      'an unsigned token (alg: none) with valid claims',
      async ({ idp, resource }) => {
        const [, payload] = (await idp.token(DESK[0] ?? OUTSIDER, resource)).split('.');
        return `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload ?? ''}.`;
      },
      /not signed with an accepted algorithm|not a valid signed JWT/,
    ],
    [
      'a token whose signature does not match its claims',
      async ({ idp, resource }) => {
        const [header, , signature] = (await idp.token(DESK[0] ?? OUTSIDER, resource)).split('.');
        const claims = { ...decodeJwt(await idp.token(DESK[1] ?? OUTSIDER, resource)), sub: 'mallory' };
        return `${header ?? ''}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature ?? ''}`;
      },
      /signature/,
    ],
  ];
  for (const [what, mint, reason] of refusals) {
    test(`${what} is refused with 401 and a challenge naming the metadata`, async () => {
      const token = await mint({ idp, other: otherIssuer, resource });
      const seen = upstream.requests.length;
      const response = await post(server.url, `Bearer ${token}`);
      assert.equal(response.status, 401);
      const params = challenge(response);
      assert.equal(params['error'], 'invalid_token');
      assert.match(params['error_description'] ?? '', reason);
      assert.ok(params['resource_metadata']?.endsWith('/.well-known/oauth-protected-resource/mcp'));
      assert.equal(upstream.requests.length, seen, 'nothing reached the upstream');
    });
  }

  test('a valid token without the scope gets 403 insufficient_scope naming the scope', async () => {
    const token = await otherScopeToken(idp, resource);
    assert.equal(decodeJwt(token).aud, resource, 'the token is otherwise right: the audience matches');
    const response = await post(server.url, `Bearer ${token}`);
    assert.equal(response.status, 403);
    const params = challenge(response);
    assert.equal(params['error'], 'insufficient_scope');
    assert.equal(params['scope'], SCOPE);
    assert.ok(params['resource_metadata']);
  });
});

/** The outsider's client is never granted the server's scope: its token carries none. */
function otherScopeToken(idp: IdentityProvider, resource: string): Promise<string> {
  return idp.token(OUTSIDER, resource, '');
}
