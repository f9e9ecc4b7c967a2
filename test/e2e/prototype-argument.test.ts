/** A `__proto__` argument is refused, by name, over stdio and --http, and reaches no upstream. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { withFakeUpstream } from '../helpers/fake-upstream.js';
import { startHttp } from '../helpers/http-server.js';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';

const KEY = 'fake-key-0123456789-SECRET';
const TOKEN = 'e2e-proto-token-0123456789';
/** JSON.parse makes `__proto__` an own key, as a client's JSON does on the wire. */
const withProto = (): Record<string, unknown> => JSON.parse('{"limit":2,"__proto__":{"limit":3}}') as Record<string, unknown>;

function assertRefused(result: Awaited<ReturnType<Client['callTool']>>): void {
  const error = errorOf(result);
  assert.equal(error.code, 'VALIDATION_ERROR', textOf(result));
  assert.match(error.message, /"__proto__" is not allowed/);
  assert.match(error.hint ?? '', /Accepted parameters: .*limit/);
}

test('a __proto__ argument is refused with a structured error over stdio, and nothing is sent upstream', async () => {
  await withFakeUpstream(async (fake) => {
    const server = await connectV2({ baseUrl: fake.url, key: KEY });
    try {
      assertRefused(await server.client.callTool({ name: 'shorts_short_screener', arguments: withProto() }));
      assert.equal(fake.dataRequests().length, 0);
      // The same call without it is answered: the refusal is about the name, not the tool.
      const plain = await server.client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      assert.notEqual(plain.isError, true, textOf(plain));
      assert.equal(fake.dataRequests().length, 1);
    } finally {
      await server.close();
    }
  });
});

test('a __proto__ argument is refused over --http too', async () => {
  await withFakeUpstream(async (fake) => {
    const server = await startHttp({ MARKET_DATA_BASE_URL: fake.url, MARKET_DATA_API_KEY: KEY, MARKET_DATA_HTTP_TOKEN: TOKEN });
    const { url } = server;
    try {
      const client = new Client({ name: 'proto-http', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
      );
      assertRefused(await client.callTool({ name: 'shorts_short_screener', arguments: withProto() }));
      assert.equal(fake.dataRequests().length, 0);
      await client.close();
      // The name spelled with a JSON escape is the same name: a body is not passed unread for lacking the literal text.
      const escaped = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"shorts_short_screener","arguments":{"limit":2,"\\u005f_proto__":{"limit":3}}}}',
      });
      const answer = await escaped.text();
      const message = /^data: (.*)$/m.exec(answer)?.[1] ?? answer;
      assertRefused((JSON.parse(message) as { result: Awaited<ReturnType<Client['callTool']>> }).result);
      assert.equal(fake.dataRequests().length, 0);
    } finally {
      await server.stop();
    }
  });
});
