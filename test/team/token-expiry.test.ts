import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { decodeJwt } from 'jose';
import { createFrontDoor } from '../../src/auth/front-door.js';
import { JwtAccessTokenVerifier } from '../../src/auth/jwt-verifier.js';
import { DEFAULT_SCOPE, type OAuthSettings } from '../../src/config/oauth.js';
import { DESK, startIdentityProvider } from '../helpers/identity-provider.js';

const MEMBER = DESK[0] ?? { id: '', secret: '' };

/** The door in front of a tiny server that answers 200 to whoever it admits; time is the test's. */
async function doorAt(settings: OAuthSettings, now: () => number): Promise<{ url: string; close(): Promise<void> }> {
  const door = createFrontDoor({ staticToken: () => false, oauth: settings, verifier: new JwtAccessTokenVerifier({ settings, now }) });
  const http = createServer((req, res) => {
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

test('a token past its exp is refused with 401 invalid_token and the metadata challenge; before exp it is admitted', async () => {
  const idp = await startIdentityProvider({ accessTokenTtlS: 60 });
  const resource = new URL('http://127.0.0.1:1/mcp');
  const settings: OAuthSettings = { issuer: idp.issuer, resource, scope: DEFAULT_SCOPE, jwksUrl: undefined, tokenType: 'at+jwt' };
  const token = await idp.token(MEMBER, resource.href);
  const exp = Number(decodeJwt(token).exp) * 1000;
  let now = exp - 30_000;
  const door = await doorAt(settings, () => now);
  try {
    const admitted = await fetch(door.url, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(admitted.status, 200, 'within its lifetime the token is good');
    assert.equal(await admitted.text(), MEMBER.id, 'the caller is the token subject');
    now = exp + 60_000;
    const refused = await fetch(door.url, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(refused.status, 401);
    const header = refused.headers.get('www-authenticate') ?? '';
    assert.match(header, /^Bearer /);
    assert.match(header, /error="invalid_token"/);
    assert.match(header, /expired/);
    assert.match(header, /resource_metadata="http:\/\/127\.0\.0\.1:1\/\.well-known\/oauth-protected-resource\/mcp"/);
  } finally {
    await door.close();
    await idp.close();
  }
});
