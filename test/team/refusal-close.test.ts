/**
 * A refused request's connection is closed by the server (its body is never read), so the
 * refusal must say so. It used to say keep-alive and close anyway: whoever reuses
 * connections (HAProxy towards a node, an HTTP client towards the server) then sent its
 * next request on a dead connection and got "fetch failed: other side closed", or a 502
 * from the proxy. That was the hosted bench's start-up flake: the OAuth flow begins with a
 * 401 and goes on with the metadata request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent, fetch } from 'undici';
import { freePort, serveHttp } from '../helpers/team-serve.js';

const TOKEN = 'refusal-close-token-0123456789abcdef';

test('a 401 says Connection: close, and a client that reuses its one connection gets its next answer', async () => {
  const served = await serveHttp(await freePort(), { MARKET_DATA_HTTP_TOKEN: TOKEN }, ['--demo']);
  // One connection: every request after a refusal goes on whatever that connection became.
  const agent = new Agent({ connections: 1 });
  const base = new URL(served.url);
  try {
    const seen: string[] = [];
    const said: (string | null)[] = [];
    for (let round = 0; round < 10; round += 1) {
      const refused = await fetch(served.url, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: round, method: 'tools/list' }),
      });
      await refused.text();
      assert.equal(refused.status, 401);
      said.push(refused.headers.get('connection'));
      const next = await fetch(new URL('/healthz', base), { dispatcher: agent }).then(
        (response) => `${response.status}`,
        (error: unknown) => `failed: ${error instanceof Error ? `${error.message} (${String(error.cause)})` : String(error)}`,
      );
      seen.push(next);
    }
    assert.deepEqual(seen, Array<string>(10).fill('200'), 'the request after each refusal was answered');
    assert.deepEqual(said, Array<string>(10).fill('close'), 'each refusal says that its connection ends');
    // A signed-in request keeps its connection: refusals alone close theirs.
    const admitted = await fetch(served.url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
    });
    assert.equal(admitted.status, 200, await admitted.text().then((text) => text.slice(0, 200)));
    assert.notEqual(admitted.headers.get('connection'), 'close');
  } finally {
    await agent.close();
    await served.stop();
  }
});
