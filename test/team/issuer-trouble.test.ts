/**
 * The identity provider's trouble is not the token's: keys that cannot be read answer 503
 * with Retry-After, a rotated key is fetched at once, exp gets the clock tolerance nbf
 * gets, a JWT that is not an access token (typ) is refused, and refusals say what RFC
 * 6750 says they must. A real OpenID provider throughout; the 503 through the built binary.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import { createFrontDoor } from '../../src/auth/front-door.js';
import { JwtAccessTokenVerifier } from '../../src/auth/jwt-verifier.js';
import { DEFAULT_SCOPE, type OAuthSettings } from '../../src/config/oauth.js';
import { bearerGuard } from '../../src/transports/http-auth.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { DESK, signingKey, startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider.js';
import { eventually } from '../helpers/wait.js';
import { freePort, serveHttp } from '../helpers/team-serve.js';

const MEMBER = DESK[0] ?? { id: '', secret: '' };
const RESOURCE = new URL('http://127.0.0.1:1/mcp');

function settingsOf(idp: IdentityProvider, overrides: Partial<OAuthSettings> = {}): OAuthSettings {
  return { issuer: idp.issuer, resource: RESOURCE, scope: DEFAULT_SCOPE, jwksUrl: undefined, tokenType: 'at+jwt', ...overrides };
}

/** The door in front of a tiny server that answers 200 to whoever it admits. */
async function doorAt(settings: OAuthSettings, now: () => number = Date.now): Promise<{ url: string; close(): Promise<void> }> {
  const door = createFrontDoor({ staticToken: () => false, oauth: settings, verifier: new JwtAccessTokenVerifier({ settings, now }) });
  const http = createHttpServer((req, res) => {
    void door.admit(req, res).then((admitted) => {
      if (admitted) res.writeHead(200).end(admitted.caller.subject);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

const withToken = (url: string, token: string): Promise<Response> => fetch(url, { headers: { authorization: `Bearer ${token}` } });

/** A JWKS endpoint the test turns bad and good: 'good' serves the provider's keys. */
async function jwksEndpoint(idp: IdentityProvider): Promise<{ url: string; state: 'good' | '503' | 'garbage'; close(): Promise<void> }> {
  const metadata = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
  const endpoint = { url: '', state: '503' as 'good' | '503' | 'garbage', close: () => Promise.resolve() };
  const http: Server = createHttpServer((_req, res) => {
    if (endpoint.state === '503') res.writeHead(503).end('maintenance');
    else if (endpoint.state === 'garbage') res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not keys</html>');
    else
      void fetch(metadata.jwks_uri)
        .then((r) => r.text())
        .then((keys) => res.writeHead(200, { 'content-type': 'application/json' }).end(keys));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  endpoint.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/jwks`;
  endpoint.close = () => {
    http.closeAllConnections();
    return new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return endpoint;
}

describe('the identity provider in trouble', () => {
  let idp: IdentityProvider;
  let upstream: FakeUpstream;
  before(async () => {
    idp = await startIdentityProvider();
    upstream = await startFakeUpstream();
  });
  after(async () => {
    await idp.close();
    await upstream.close();
  });

  test(
    'keys answering 503, then garbage: a valid token gets 503 with Retry-After, not 401; once the keys are back it is admitted',
    { timeout: 60_000 },
    async () => {
      const jwks = await jwksEndpoint(idp);
      const port = await freePort();
      const resource = `http://127.0.0.1:${port}/mcp`;
      const node = await serveHttp(port, {
        MARKET_DATA_OAUTH_ISSUER: idp.issuer,
        MARKET_DATA_OAUTH_RESOURCE: resource,
        MARKET_DATA_OAUTH_JWKS_URL: jwks.url,
        MARKET_DATA_BASE_URL: upstream.url,
        MARKET_DATA_API_KEY: 'team-account-key-0001',
      });
      try {
        const token = await idp.token(MEMBER, resource);
        const call = (): Promise<Response> =>
          fetch(resource, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
          });
        for (const state of ['503', 'garbage'] as const) {
          jwks.state = state;
          // A fetch at most every few seconds: wait until one has seen this state.
          await eventually(async () => (await call()).headers.get('retry-after') !== null, `a 503 while the keys answer ${state}`, 20_000);
          const refused = await call();
          assert.equal(refused.status, 503, `keys answering ${state}`);
          assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
          assert.equal(refused.headers.get('www-authenticate'), null, 'no challenge: the token was not at fault');
          assert.match(await refused.text(), /could not be checked/);
        }
        jwks.state = 'good';
        await eventually(async () => (await call()).status === 200, 'admitted once the keys are back', 20_000);
      } finally {
        await node.stop();
        await jwks.close();
      }
    },
  );

  test('a key rotated at the provider is fetched at once: the first token signed with it is admitted', { timeout: 30_000 }, async () => {
    const port = await freePort();
    const first = await startIdentityProvider({ port, key: await signingKey('key-2026-a') });
    const settings: OAuthSettings = { ...settingsOf(first) };
    const door = await doorAt(settings);
    let second: IdentityProvider | undefined;
    try {
      assert.equal((await withToken(door.url, await first.token(MEMBER, RESOURCE.href))).status, 200, 'the first key');
      await first.close();
      // The same issuer, restarted with a new key.
      second = await startIdentityProvider({ port, key: await signingKey('key-2026-b') });
      const rotated = await withToken(door.url, await second.token(MEMBER, RESOURCE.href));
      assert.equal(rotated.status, 200, `the rotated key at once (${rotated.headers.get('www-authenticate') ?? ''})`);
    } finally {
      await door.close();
      await second?.close();
    }
  });

  test(
    'exp gets the same clock tolerance as nbf: a token a second past its exp is admitted, one well past it refused',
    { timeout: 30_000 },
    async () => {
      const shortLived = await startIdentityProvider({ accessTokenTtlS: 1 });
      let offsetMs = 0;
      const door = await doorAt(settingsOf(shortLived), () => Date.now() + offsetMs);
      try {
        const token = await shortLived.token(MEMBER, RESOURCE.href);
        const exp = Number(decodeJwt(token).exp) * 1000;
        await eventually(() => Date.now() > exp + 1000, 'the token a second past its exp', 5000);
        const late = await withToken(door.url, token);
        assert.equal(late.status, 200, `within the tolerance (${late.headers.get('www-authenticate') ?? ''})`);
        offsetMs = 10_000;
        const expired = await withToken(door.url, token);
        assert.equal(expired.status, 401);
        assert.match(expired.headers.get('www-authenticate') ?? '', /error="invalid_token".*expired/);
      } finally {
        await door.close();
        await shortLived.close();
      }
    },
  );

  test('a JWT signed by the provider whose typ is not at+jwt is no access token: refused, unless the operator accepts any', async () => {
    const key = await signingKey();
    const provider = await startIdentityProvider({ key });
    const strict = await doorAt(settingsOf(provider));
    const lenient = await doorAt(settingsOf(provider, { tokenType: 'any' }));
    try {
      const now = Math.floor(Date.now() / 1000);
      const forged = await new SignJWT({ scope: DEFAULT_SCOPE, client_id: MEMBER.id })
        .setProtectedHeader({ alg: 'RS256', kid: key.kid ?? '', typ: 'JWT' })
        .setIssuer(provider.issuer)
        .setAudience(RESOURCE.href)
        .setSubject(MEMBER.id)
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .sign(await importJWK(key, 'RS256'));
      const refused = await withToken(strict.url, forged);
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token".*typ/);
      assert.equal((await withToken(lenient.url, forged)).status, 200, 'MARKET_DATA_OAUTH_TOKEN_TYPE=any');
      assert.equal((await withToken(strict.url, await provider.token(MEMBER, RESOURCE.href))).status, 200, 'its at+jwt tokens pass');
    } finally {
      await strict.close();
      await lenient.close();
      await provider.close();
    }
  });

  test('refusals as RFC 6750 says: no credentials get a challenge without an error code, a malformed header invalid_request, a bad token invalid_token', async () => {
    const door = await doorAt(settingsOf(idp));
    try {
      for (const authorization of [undefined, 'Basic YWxpY2U6c2VjcmV0']) {
        const response = await fetch(door.url, { headers: authorization ? { authorization } : {} });
        assert.equal(response.status, 401, `${authorization ?? 'no header'}`);
        const header = response.headers.get('www-authenticate') ?? '';
        assert.match(header, /^Bearer /);
        assert.doesNotMatch(header, /error=/, `${authorization ?? 'no header'}: ${header}`);
        assert.match(header, /resource_metadata="/);
      }
      const malformed = await fetch(door.url, { headers: { authorization: 'Bearer two tokens' } });
      assert.equal(malformed.status, 400);
      assert.match(malformed.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
      const bad = await withToken(door.url, 'not.a.token');
      assert.equal(bad.status, 401);
      assert.match(bad.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    } finally {
      await door.close();
    }
  });

  test('the static token too: no credentials get a challenge without an error code, a wrong token invalid_token', async () => {
    const guard = bearerGuard('static-token-0123456789abcdef');
    const http = createHttpServer((req, res) => {
      if (guard(req, res)) res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    try {
      const none = await fetch(url);
      assert.equal(none.status, 401);
      assert.doesNotMatch(none.headers.get('www-authenticate') ?? '', /error=/);
      const wrong = await withToken(url, 'wrong-token');
      assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    } finally {
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
