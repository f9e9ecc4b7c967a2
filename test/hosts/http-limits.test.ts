/**
 * --http before authentication: a refused request's body is not read, and the number of
 * connections is capped (MARKET_DATA_HTTP_MAX_CONNECTIONS).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { startHttp } from '../helpers/http-server.js';
import { eventually } from '../helpers/fake-upstream.js';

const TOKEN = 'limits-http-token-0123456789';
const BODY_BYTES = 64 * 1024 * 1024;

function portOf(url: string): number {
  return Number(new URL(url).port);
}

test('a request without the token is answered 401 and its connection closed; its 64 MB body is not read', { timeout: 60_000 }, async () => {
  const server = await startHttp({ MARKET_DATA_HTTP_TOKEN: TOKEN }, { args: ['--demo'] });
  try {
    const socket = connect(portOf(server.url), '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    // once() rejects on 'error': a write after the server closed meets EPIPE, which is the point.
    const closed = once(socket, 'close').catch(() => undefined);
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let written = 0;
    while (written < BODY_BYTES && !socket.destroyed && !socket.writableEnded) {
      written += chunk.length;
      if (!socket.write(chunk)) await Promise.race([once(socket, 'drain').catch(() => undefined), closed]);
    }
    await closed;
    // The 401 is written first; a client still sending when the server closes may lose it to the reset.
    assert.ok(answer === '' || answer.startsWith('HTTP/1.1 401'), answer.slice(0, 100));
    // The kernel's buffers take a few MB; a server that read the body would have taken all 64.
    assert.ok(written < BODY_BYTES / 2, `the client could send ${Math.round(written / 1e6)} MB before the server closed`);
  } finally {
    await server.stop();
  }
});

test('connections beyond MARKET_DATA_HTTP_MAX_CONNECTIONS are refused; those within it stay open', async () => {
  const server = await startHttp({ MARKET_DATA_HTTP_TOKEN: TOKEN, MARKET_DATA_HTTP_MAX_CONNECTIONS: '3' }, { args: ['--demo'] });
  const sockets: Socket[] = [];
  try {
    const closedByServer = new Set<Socket>();
    for (let i = 0; i < 5; i += 1) {
      const socket = connect(portOf(server.url), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.on('close', () => closedByServer.add(socket));
      await once(socket, 'connect');
      sockets.push(socket);
    }
    await eventually(() => closedByServer.size >= 2, 10_000, 'the connections over the cap to be closed');
    assert.deepEqual(
      sockets.map((s) => closedByServer.has(s)),
      [false, false, false, true, true],
    );
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop();
  }
});
