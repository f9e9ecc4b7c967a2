/**
 * No lockout: slow, unauthenticated connections cannot fill the node's connection cap, one
 * member's listening streams cannot either, /healthz stays answered, and HAProxy as
 * deploy/haproxy.cfg sets it up queues the calls beyond a node's cap instead of losing
 * them. The built binary, a real OpenID provider and a real haproxy.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { DESK, startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider.js';
import { eventually } from '../helpers/wait.js';
import { freePort, serveHttp, type Served } from '../helpers/team-serve.js';

const TOKEN = 'lockout-static-token-0123456789';
const DEPLOY_CFG = fileURLToPath(new URL('../../../deploy/haproxy.cfg', import.meta.url));
const hasHaproxy = spawnSync('sh', ['-c', 'command -v haproxy']).status === 0;

interface Answer {
  status: number;
  body: string;
}

/** One request on a connection of its own (no pool: each probe needs a new connection, as a health check does). */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res: IncomingMessage) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const timeoutMs = options.timeoutMs ?? 5000;
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.end(options.body);
  });
}

/** Opens an event stream and resolves with its status once the headers come; the stream stays open. */
function openStream(url: string, token: string): Promise<{ status: number; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` }, agent: false }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

const toolCall = (url: string, token: string): Promise<Answer> =>
  send(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'shorts_short_screener', arguments: { limit: 1 } },
    }),
  });

describe('no lockout', () => {
  let upstream: FakeUpstream;
  const stops: (() => Promise<void>)[] = [];

  before(async () => {
    upstream = await startFakeUpstream();
  });
  after(async () => {
    for (const stop of stops) await stop().catch(() => undefined);
    await upstream.close();
  });

  const node = async (env: Record<string, string>, port?: number): Promise<Served> => {
    const served = await serveHttp(port ?? (await freePort()), {
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: 'team-account-key-0001',
      ...env,
    });
    stops.push(() => served.stop());
    return served;
  };

  test(
    'sockets sending their headers a byte at a time, more than the cap, leave room: /healthz and calls are answered',
    { timeout: 60_000 },
    async () => {
      const served = await node({ MARKET_DATA_HTTP_TOKEN: TOKEN, MARKET_DATA_HTTP_MAX_CONNECTIONS: '32' });
      const { port } = new URL(served.url);
      const slow: Socket[] = [];
      const drip = setInterval(() => {
        for (const socket of slow) if (!socket.destroyed) socket.write('x-slow: 1\r\n');
      }, 300);
      stops.push(() => {
        clearInterval(drip);
        for (const socket of slow) socket.destroy();
        return Promise.resolve();
      });
      for (let i = 0; i < 40; i += 1) {
        const socket = connect(Number(port), '127.0.0.1');
        socket.on('error', () => undefined);
        socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        slow.push(socket);
      }
      // The slow ones hold the cap until they count as slow (a second without a request): then each newcomer finds room.
      await eventually(
        async () => (await send(new URL('/healthz', served.url).href).catch(() => undefined))?.status === 200,
        '/healthz answered beside the slow sockets',
        8000,
      );
      for (let i = 0; i < 5; i += 1) {
        assert.equal((await send(new URL('/healthz', served.url).href)).status, 200, `/healthz, probe ${i + 1}`);
        assert.equal((await send(new URL('/readyz', served.url).href)).status, 200, `/readyz, probe ${i + 1}`);
      }
      const call = await toolCall(served.url, TOKEN);
      assert.equal(call.status, 200);
      assert.match(call.body, /"result"/);
      clearInterval(drip);
    },
  );

  test('a node stalled for 1.5 s while requests arrive closes none of them as slow', { timeout: 60_000 }, async () => {
    const served = await node({ MARKET_DATA_HTTP_TOKEN: TOKEN });
    const port = Number(new URL(served.url).port);
    const pid = served.child.pid;
    assert.ok(pid !== undefined);
    const opened: { socket: Socket; answer: Promise<string> }[] = [];
    for (let i = 0; i < 100; i += 1) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => undefined);
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      const answer = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
      await once(socket, 'connect');
      opened.push({ socket, answer });
    }
    stops.push(() => {
      for (const { socket } of opened) socket.destroy();
      return Promise.resolve();
    });
    // Every connection accepted, none has sent its request yet.
    await eventually(async () => (await send(new URL('/healthz', served.url).href)).status === 200, 'the node answers');
    // The node's event loop stalls (a loaded machine; here SIGSTOP) while a newcomer connects and
    // the 100 send their requests: the stall, not the clients, kept them from being read. It must
    // outlast the second after which a connection without a request counts as slow.
    process.kill(pid, 'SIGSTOP');
    try {
      const newcomer = connect(port, '127.0.0.1');
      newcomer.on('error', () => undefined);
      stops.push(() => {
        newcomer.destroy();
        return Promise.resolve();
      });
      await once(newcomer, 'connect');
      for (const { socket } of opened) socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      // time passes: the stall must outlast the slow-connection second (see above); a stopped process sends no event.
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const answers = await Promise.all(opened.map(({ answer }) => answer));
    const lost = answers.filter((a) => !a.startsWith('HTTP/1.1 200')).length;
    assert.equal(lost, 0, `${lost} of 100 requests lost their connection`);
  });

  describe('listening streams, per member', () => {
    let idp: IdentityProvider;
    before(async () => {
      idp = await startIdentityProvider();
      stops.push(() => idp.close());
    });

    test("one member's listening streams are capped at 8; another member and /healthz are not held up", { timeout: 60_000 }, async () => {
      const port = await freePort();
      const resource = `http://127.0.0.1:${port}/mcp`;
      const served = await node({ MARKET_DATA_OAUTH_ISSUER: idp.issuer, MARKET_DATA_OAUTH_RESOURCE: resource }, port);
      const [alice, bob] = [DESK[0], DESK[1]];
      assert.ok(alice && bob);
      const aliceToken = await idp.token(alice, resource);
      const bobToken = await idp.token(bob, resource);
      const streams: { status: number; close: () => void }[] = [];
      for (let i = 0; i < 8; i += 1) streams.push(await openStream(served.url, aliceToken));
      stops.push(() => Promise.resolve(streams.forEach((s) => s.close())));
      assert.deepEqual(
        streams.map((s) => s.status),
        Array.from({ length: 8 }, () => 200),
      );
      const ninth = await openStream(served.url, aliceToken);
      ninth.close();
      assert.equal(ninth.status, 429, "alice's ninth stream is refused");
      const bobs = await openStream(served.url, bobToken);
      bobs.close();
      assert.equal(bobs.status, 200, 'bob opens his');
      assert.equal((await send(new URL('/healthz', served.url).href)).status, 200);
      streams.pop()?.close();
      await eventually(async () => {
        const again = await openStream(served.url, aliceToken);
        again.close();
        return again.status === 200;
      }, 'alice may open one again once she closed one');
    });

    test(
      "2026-07-28 listen streams count too: one member's ninth subscriptions/listen is refused, another member's is not",
      { timeout: 60_000 },
      async () => {
        const port = await freePort();
        const resource = `http://127.0.0.1:${port}/mcp`;
        const served = await node({ MARKET_DATA_OAUTH_ISSUER: idp.issuer, MARKET_DATA_OAUTH_RESOURCE: resource }, port);
        const [alice, bob] = [DESK[0], DESK[1]];
        assert.ok(alice && bob);
        const modernClient = async (token: string): Promise<Client> => {
          const client = new Client(
            { name: 'desk-agent', version: '1.0.0' },
            { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } },
          );
          await client.connect(
            new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
          );
          stops.push(() => client.close());
          return client;
        };
        const aliceClient = await modernClient(await idp.token(alice, resource));
        for (let i = 0; i < 8; i += 1) await aliceClient.listen({ toolsListChanged: true });
        await assert.rejects(aliceClient.listen({ toolsListChanged: true }, { timeout: 10_000 }), "alice's ninth listen is refused");
        const bobClient = await modernClient(await idp.token(bob, resource));
        await bobClient.listen({ toolsListChanged: true });
        assert.equal((await send(new URL('/healthz', served.url).href)).status, 200);
      },
    );
  });

  describe('through HAProxy as deploy/haproxy.cfg sets it up', { skip: hasHaproxy ? false : 'haproxy not installed' }, () => {
    const CAP = 32;
    const CALLS = 100;

    /**
     * deploy/haproxy.cfg with this test's addresses, one node, checks every 200 ms (to start
     * quickly), and each `maxconn` scaled to the node's cap as its comment says (the file's are for 256);
     * `withMaxconn: false` takes maxconn and timeout queue out (the control).
     */
    function config(proxyPort: number, nodePort: number, withMaxconn: boolean): string {
      let text = readFileSync(DEPLOY_CFG, 'utf8')
        .replace(/bind :8080/, `bind 127.0.0.1:${proxyPort}`)
        .replace(/^\s*server node2 .*$/gm, '')
        .replace(/server node1 node1:3000/g, `server node1 127.0.0.1:${nodePort}`)
        .replace(/inter 5s/g, 'inter 200ms')
        .replace(/log stdout format raw local0/, 'log stderr format raw local0');
      assert.match(text, /maxconn \d+/, 'deploy/haproxy.cfg sets maxconn');
      assert.match(text, /timeout queue 65s/, 'deploy/haproxy.cfg sets timeout queue');
      text = withMaxconn
        ? text.replace(/maxconn (\d+)/g, (_, n: string) => `maxconn ${Math.floor((Number(n) * CAP) / 256)}`)
        : text.replace(/ maxconn \d+/g, '').replace(/timeout queue 65s/, '');
      const file = join(mkdtempSync(join(tmpdir(), 'mdmcp-lockout-')), 'haproxy.cfg');
      writeFileSync(file, text);
      return file;
    }

    async function throughProxy(withMaxconn: boolean): Promise<Answer[]> {
      // Each call is held 300 ms upstream, so that they are all in flight together.
      upstream.answer = () => ({ body: { data: [{ value: 1 }], _meta: { request_id: 'req-slow' } }, delayMs: 300 });
      const served = await node({
        MARKET_DATA_HTTP_TOKEN: TOKEN,
        MARKET_DATA_HTTP_MAX_CONNECTIONS: String(CAP),
        MARKET_DATA_CACHE_ENTRIES: '0',
      });
      const proxyPort = await freePort();
      const proxy: ChildProcess = spawn('haproxy', ['-f', config(proxyPort, Number(new URL(served.url).port), withMaxconn), '-db'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      stops.push(async () => {
        if (proxy.exitCode === null) {
          const exited = new Promise((resolve) => proxy.once('exit', resolve));
          proxy.kill('SIGKILL');
          await exited;
        }
      });
      const url = `http://127.0.0.1:${proxyPort}/mcp`;
      await eventually(
        async () => (await send(new URL('/healthz', url).href).catch(() => undefined))?.status === 200,
        'HAProxy sees the node up',
        20_000,
      );
      // Each call asks its own page, so that none is answered with another's (no shared request).
      return Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          send(url, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${TOKEN}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
            timeoutMs: 90_000,
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: { name: 'shorts_short_screener', arguments: { limit: i + 1 } },
            }),
          }).catch((error: unknown) => ({ status: 0, body: String(error) })),
        ),
      );
    }

    test(`${CALLS} calls at once through one node whose cap is ${CAP}: none lost`, { timeout: 120_000 }, async () => {
      const answers = await throughProxy(true);
      const lost = answers.filter((a) => a.status !== 200 || !a.body.includes('"result"'));
      assert.equal(
        lost.length,
        0,
        `${lost.length} lost, first: ${lost
          .slice(0, 3)
          .map((a) => `${a.status} ${a.body.slice(0, 120)}`)
          .join(' | ')}`,
      );
    });

    test('the control: without maxconn and timeout queue, HAProxy loses calls beyond the cap', { timeout: 120_000 }, async () => {
      const answers = await throughProxy(false);
      const lost = answers.filter((a) => a.status !== 200);
      assert.ok(lost.length > 0, 'some calls were lost');
    });
  });
});
