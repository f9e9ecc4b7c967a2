/**
 * The connection budget counts a connection's wait in the time the server could listen: a
 * stalled event loop (a burst of calls on a loaded machine) reads nobody's request, and 200
 * calls opened at once by one client lost connections as "slow" (ECONNRESET) though each had
 * sent its request at once. Timers on node:test's mock clock; the wall clock injected.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { limitConnections } from '../../src/transports/http-limits.js';
import { listeningTime, type ListeningTime } from '../../src/transports/listening-time.js';
import { eventually } from '../helpers/wait.js';

test('listening time is wall time while the loop turns, and a stall of 3 s counts as two ticks', (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  let wall = 0;
  const listening = listeningTime({ tickMs: 100, wallNow: () => wall });
  try {
    for (let i = 0; i < 10; i += 1) {
      wall += 100;
      t.mock.timers.tick(100);
    }
    assert.equal(listening.now(), 1000);
    // The loop stalls for 3 s: the next tick comes late.
    wall += 3000;
    t.mock.timers.tick(100);
    assert.equal(listening.now(), 1200);
    wall += 50;
    assert.equal(listening.now(), 1250, 'between ticks, wall time');
  } finally {
    listening.stop();
  }
});

/** A listening clock the test moves. */
function heldClock(): ListeningTime & { advance(ms: number): void } {
  let at = 0;
  return { now: () => at, stop: () => undefined, advance: (ms) => (at += ms) };
}

async function open(server: Server): Promise<Socket> {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  return socket;
}

test('connections that sent nothing while the server could not listen are not closed as slow; once it could, those over the budget are', async () => {
  const server = createServer((_req, res) => res.end('ok'));
  const clock = heldClock();
  // A cap of 256: 32 connections without a request may wait before the oldest are closed.
  limitConnections(server, 256, clock);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sockets: Socket[] = [];
  try {
    const closed = new Set<Socket>();
    for (let i = 0; i < 40; i += 1) {
      const socket = await open(server);
      socket.on('close', () => closed.add(socket));
      sockets.push(socket);
    }
    // The listening clock held (a stalled loop, whatever the wall clock says): a newcomer closes nobody.
    sockets.push(await open(server));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(closed.size, 0, `${closed.size} closed while the server could not listen`);
    // A second of listening without a request: slow. The newcomer makes room down to the budget.
    clock.advance(1000);
    sockets.push(await open(server));
    await eventually(() => closed.size >= 40 - 32, 'the slow ones over the budget closed');
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});
