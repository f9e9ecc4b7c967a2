/**
 * Data calls go through node:http with a keep-alive agent of the transport's own
 * (src/api/http-get.ts, src/api/transport.ts): connections are reused and capped, and a
 * kept-alive connection the server drops under a request is a recoverable NETWORK_ERROR
 * (the client's retry policy decides: the request may have been charged), after which the
 * next call gets a new connection.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { ApiError } from '../../src/api/errors.js';
import { HttpTransport } from '../../src/api/transport.js';

async function withUpstream(
  answer: (request: IncomingMessage, response: ServerResponse, requestsOnSocket: number) => void,
  run: (url: string, connections: () => number) => Promise<void>,
): Promise<void> {
  const perSocket = new WeakMap<Socket, number>();
  let connections = 0;
  const server = createServer((request, response) => {
    const n = (perSocket.get(request.socket) ?? 0) + 1;
    perSocket.set(request.socket, n);
    answer(request, response, n);
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  try {
    await run(`http://127.0.0.1:${address.port}`, () => connections);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const ok = (response: ServerResponse, body: unknown): void => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const transport = (baseUrl: string, connections = 2): HttpTransport =>
  new HttpTransport({ baseUrl, apiKey: 'keep-alive-key', maxResponseBytes: 1_000_000, userAgent: 'market-data-mcp/test', connections });

test('data calls in turn reuse one connection', async () => {
  await withUpstream(
    (request, response) => ok(response, { data: [{ path: request.url }] }),
    async (url, connections) => {
      const http = transport(url);
      try {
        for (const ticker of ['SPY', 'QQQ', 'IWM', 'DIA']) {
          const answer = await http.get(`/v1/derived/dealer-gex/${ticker}/history`, new AbortController().signal);
          assert.deepEqual(answer.body, { data: [{ path: `/v1/derived/dealer-gex/${ticker}/history` }] });
        }
        assert.equal(connections(), 1);
      } finally {
        await http.close();
      }
    },
  );
});

test('calls at once open no more connections than the cap', async () => {
  const held: ServerResponse[] = [];
  let seen = 0;
  let release: () => void = () => undefined;
  const allHeld = new Promise<void>((resolve) => (release = resolve));
  await withUpstream(
    (_request, response) => {
      seen += 1;
      // The first two are held until both are in: the other four must wait in the agent meanwhile.
      if (seen > 2) return ok(response, { data: [] });
      held.push(response);
      if (seen === 2) release();
    },
    async (url, connections) => {
      const http = transport(url, 2);
      try {
        const calls = Array.from({ length: 6 }, (_, i) => http.get(`/v1/market/oi-change?limit=${i + 1}`, new AbortController().signal));
        await allHeld;
        for (const response of held.splice(0)) ok(response, { data: [] });
        const answers = await Promise.all(calls);
        assert.deepEqual(
          answers.map((a) => a.status),
          [200, 200, 200, 200, 200, 200],
        );
        assert.equal(connections(), 2);
      } finally {
        await http.close();
      }
    },
  );
});

test('a kept-alive connection the server drops under a request is a NETWORK_ERROR, and the next call gets a new one', async () => {
  await withUpstream(
    (request, response, requestsOnSocket) => {
      // The second request on a connection meets a server that has just closed it.
      if (requestsOnSocket === 2) request.socket.destroy();
      else ok(response, { data: [{ n: requestsOnSocket }] });
    },
    async (url, connections) => {
      const http = transport(url);
      try {
        await http.get('/v1/market/oi-change', new AbortController().signal);
        const dropped = await http.get('/v1/market/oi-change', new AbortController().signal).then(
          () => undefined,
          (error: unknown) => error,
        );
        assert.ok(dropped instanceof ApiError);
        assert.equal(dropped.code, 'NETWORK_ERROR');
        assert.equal(dropped.recoverable, true);
        const again = await http.get('/v1/market/oi-change', new AbortController().signal);
        assert.deepEqual(again.body, { data: [{ n: 1 }] }, 'answered on a new connection');
        assert.equal(connections(), 2);
      } finally {
        await http.close();
      }
    },
  );
});
