/**
 * A static-token --http server tells hosts that probe for OAuth that it has none (issue
 * 33): its discovery paths and the endpoints a client falls back to answer 404, with an
 * OAuth-shaped error naming the header, where a 401 sent Claude Code down a sign-in that
 * could only fail. In OAuth mode the same paths answer as before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort, serveHttp } from '../helpers/team-serve.js';

const TOKEN = 'hosts-static-token-0123456789';

/** What Claude Code, Codex, VS Code and mcp-remote ask after a 401 (seen through a logging proxy with Claude Code 2.1). */
const PROBES: readonly [string, string][] = [
  ['GET', '/.well-known/oauth-protected-resource/mcp'],
  ['GET', '/.well-known/oauth-protected-resource'],
  ['GET', '/.well-known/oauth-authorization-server'],
  ['GET', '/.well-known/openid-configuration'],
  ['GET', '/mcp/.well-known/openid-configuration'],
  ['POST', '/register'],
];

test('static token: the OAuth discovery paths and /register answer 404 naming the header; /mcp still wants the token', async () => {
  const server = await serveHttp(0, { MARKET_DATA_HTTP_TOKEN: TOKEN }, ['--demo']);
  try {
    const origin = new URL(server.url).origin;
    for (const [method, path] of PROBES) {
      const response = await fetch(`${origin}${path}`, {
        method,
        ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
      });
      assert.equal(response.status, 404, `${method} ${path}`);
      const body = (await response.json()) as { error?: string; error_description?: string };
      assert.equal(body.error, 'invalid_request', `${path}: an OAuth error a client can read`);
      assert.match(body.error_description ?? '', /does not use OAuth: send "Authorization: Bearer <token>" \(MARKET_DATA_HTTP_TOKEN\)/);
    }
    const unsigned = await fetch(server.url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(unsigned.status, 401, 'the MCP endpoint is as closed as before');
    const signed = await fetch(`${origin}/.well-known/oauth-protected-resource`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(signed.status, 404, 'with the token too: there is no OAuth to find');
  } finally {
    await server.stop();
  }
});

test('OAuth mode: the protected resource metadata is served and the other paths still ask for a token', async () => {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  // The issuer is only named here: serving the metadata and refusing without a token reach no identity provider.
  const server = await serveHttp(port, { MARKET_DATA_OAUTH_ISSUER: 'http://127.0.0.1:9/', MARKET_DATA_OAUTH_RESOURCE: resource }, [
    '--demo',
  ]);
  try {
    const origin = new URL(server.url).origin;
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${origin}${path}`);
      assert.equal(response.status, 200, path);
      assert.equal(((await response.json()) as { resource?: string }).resource, resource);
    }
    for (const [method, path] of PROBES.slice(2)) {
      const response = await fetch(`${origin}${path}`, { method });
      assert.equal(response.status, 401, `${method} ${path} in OAuth mode`);
      await response.body?.cancel();
    }
  } finally {
    await server.stop();
  }
});
