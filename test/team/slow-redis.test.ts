/**
 * A Redis that answers, but slowly (each command well under the 1 s timeout), is left for
 * the in-process gate once it is slower than a call's share of its deadline, and joined
 * again once it is fast: calls took 3.7-11 s on such a Redis and one missed its 10 s
 * deadline. The built binary, a real redis-server behind a proxy that delays what it carries.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { eventually } from '../helpers/wait.js';
import { findRedisServer, ThrowawayRedis } from '../helpers/redis-server.js';
import { freePort, serveHttp, type Served } from '../helpers/team-serve.js';

const TOKEN = 'slow-redis-static-token-0123456789';

/** A TCP proxy to Redis that holds each chunk `delayMs` (each way), in order. */
async function delayingProxy(redisPort: number): Promise<{ url: string; delayMs: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const proxy = { url: '', delayMs: 0, close: () => Promise.resolve() };
  const pipe = (from: Socket, to: Socket): void => {
    let chain = Promise.resolve();
    from.on('data', (chunk: Buffer) => {
      const delay = proxy.delayMs;
      chain = chain
        .then(() => new Promise<void>((resolve) => setTimeout(resolve, delay)))
        .then(() => void (to.destroyed || to.write(chunk)));
    });
    from.on('close', () => void chain.then(() => to.destroy()));
    from.on('error', () => undefined);
  };
  const server: Server = createServer((client) => {
    const upstream = connect(redisPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  proxy.url = `redis://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  proxy.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}

interface RedisCheck {
  ok: boolean;
  detail: string;
}

async function redisCheck(served: Served): Promise<RedisCheck | undefined> {
  const body = (await (await fetch(new URL('/readyz', served.url))).json()) as { checks?: { redis?: RedisCheck } };
  return body.checks?.redis;
}

describe('a slow Redis', { skip: findRedisServer() ? false : 'redis-server not installed' }, () => {
  let redis: ThrowawayRedis;
  let upstream: FakeUpstream;
  before(async () => {
    redis = await ThrowawayRedis.start();
    upstream = await startFakeUpstream();
  });
  after(async () => {
    await upstream.close();
    await redis.kill();
  });

  test(
    "is left for the in-process gate once slower than the calls' share of their deadline, and joined again once fast",
    { timeout: 90_000 },
    async () => {
      const proxy = await delayingProxy(redis.port);
      const served = await serveHttp(await freePort(), {
        MARKET_DATA_HTTP_TOKEN: TOKEN,
        MARKET_DATA_BASE_URL: upstream.url,
        MARKET_DATA_API_KEY: 'team-account-key-0001',
        MARKET_DATA_REDIS_URL: proxy.url,
        MARKET_DATA_DEADLINE_MS: '4000',
      });
      const client = new Client({ name: 'slow-redis-test', version: '1' });
      try {
        await eventually(async () => (await redisCheck(served))?.ok === true, 'the node on Redis', 20_000);
        await client.connect(
          new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
        );
        // 600 ms a round trip: a call's eight would take 4.8 s, past its 4 s deadline.
        proxy.delayMs = 300;
        for (let limit = 1; limit <= 3; limit += 1) {
          const result = await client.callTool({ name: 'shorts_short_screener', arguments: { limit } });
          assert.notEqual(result.isError, true, `call ${limit}: ${JSON.stringify(result.content).slice(0, 300)}`);
        }
        const left = await redisCheck(served);
        assert.equal(left?.ok, false, 'the node left Redis');
        assert.match(left?.detail ?? '', /slower than a call can afford/);
        proxy.delayMs = 0;
        await eventually(async () => (await redisCheck(served))?.ok === true, 'the node back on Redis once it is fast', 30_000);
      } finally {
        await client.close();
        await served.stop();
        await proxy.close();
      }
    },
  );
});
