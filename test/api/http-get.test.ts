/**
 * A fresh transport fetches the upstream's openapi.json through node:http
 * (src/api/http-get.ts), on a connection of its own: the request a first start waits on.
 * It is judged as every answer is: key in the header only, base path kept, redirects and oversized
 * bodies refused, network failures named.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { test } from 'node:test';
import { ApiError } from '../../src/api/errors.js';
import { HttpTransport } from '../../src/api/transport.js';

interface Seen {
  url: string | undefined;
  headers: IncomingHttpHeaders;
}

async function withUpstream(answer: (response: ServerResponse) => void, run: (url: string, seen: Seen[]) => Promise<void>): Promise<void> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url, headers: request.headers });
    answer(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  try {
    await run(`http://127.0.0.1:${address.port}`, seen);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const transport = (baseUrl: string, maxResponseBytes = 1_000_000): HttpTransport =>
  new HttpTransport({ baseUrl, apiKey: 'first-get-key', maxResponseBytes, userAgent: 'market-data-mcp/test' });

async function rejected(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const json =
  (body: unknown, headers: Record<string, string> = {}) =>
  (response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

test('the document arrives parsed, asked under the base path with the key in the Authorization header only', async () => {
  const document = { openapi: '3.1.0', paths: {} };
  await withUpstream(json(document, { 'x-request-id': 'req-1' }), async (url, seen) => {
    const answer = await transport(`${url}/api/`).get('/v1/openapi.json', new AbortController().signal);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, document);
    assert.equal(answer.requestId, 'req-1');
    assert.equal(seen[0]?.url, '/api/v1/openapi.json');
    assert.equal(seen[0]?.headers.authorization, 'Bearer first-get-key');
    assert.equal(seen[0]?.headers['user-agent'], 'market-data-mcp/test');
    assert.doesNotMatch(seen[0]?.url ?? '', /first-get-key/);
  });
});

test('a redirect is refused as RESPONSE_INVALID, not followed', async () => {
  const redirect = (response: ServerResponse): void => {
    response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
    response.end();
  };
  await withUpstream(redirect, async (url, seen) => {
    const error = await rejected(transport(url).get('/v1/openapi.json', new AbortController().signal));
    assert.equal(error.code, 'RESPONSE_INVALID');
    assert.equal(seen.length, 1);
  });
});

test('a document over the response cap is refused unread, declared or not', async () => {
  const big = { paths: { padding: 'x'.repeat(50_000) } };
  await withUpstream(json(big), async (url) => {
    const error = await rejected(transport(url, 10_000).get('/v1/openapi.json', new AbortController().signal));
    assert.equal(error.code, 'RESPONSE_TOO_LARGE_LOCAL');
  });
  const chunked = (response: ServerResponse): void => {
    response.writeHead(200, { 'content-type': 'application/json' });
    for (let i = 0; i < 10; i += 1) response.write('x'.repeat(5_000));
    response.end();
  };
  await withUpstream(chunked, async (url) => {
    const error = await rejected(transport(url, 10_000).get('/v1/openapi.json', new AbortController().signal));
    assert.equal(error.code, 'RESPONSE_TOO_LARGE_LOCAL');
  });
});

test('a body that is not JSON is reported as invalid, not thrown', async () => {
  const html = (response: ServerResponse): void => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<html>maintenance</html>');
  };
  await withUpstream(html, async (url) => {
    const answer = await transport(url).get('/v1/openapi.json', new AbortController().signal);
    assert.equal(answer.body, undefined);
    assert.equal(answer.bodyInvalid, true);
  });
});

test('no upstream listening is a NETWORK_ERROR naming the cause, without the key', async () => {
  // A port just released by a server of ours: nothing listens there.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const address = closed.address();
  await new Promise((resolve) => closed.close(resolve));
  const port = address !== null && typeof address === 'object' ? address.port : 1;
  const error = await rejected(transport(`http://127.0.0.1:${port}`).get('/v1/openapi.json', new AbortController().signal));
  assert.equal(error.code, 'NETWORK_ERROR');
  assert.match(error.message, /ECONNREFUSED/);
  assert.doesNotMatch(JSON.stringify(error.toJSON()), /first-get-key/);
});

test("the caller's abort ends a request the upstream never answers", async () => {
  await withUpstream(
    () => undefined,
    async (url) => {
      const controller = new AbortController();
      const pending = transport(url).get('/v1/openapi.json', controller.signal);
      setImmediate(() => controller.abort(new Error('deadline')));
      assert.equal((await rejected(pending)).code, 'CANCELLED');
    },
  );
});
