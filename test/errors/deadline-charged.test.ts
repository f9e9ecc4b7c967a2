/**
 * A deadline that falls after the API's 200 status line, while the body is still arriving,
 * cost a unit (spec: a 200 costs one): the error says the request reached the API and was
 * most likely charged, and not to repeat it as is. One that falls before any status line
 * claims no charge. Through the built binary against an upstream that stalls.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { connectV2, errorOf } from '../helpers/mcp.js';
import { catalogDocument } from '../helpers/fake-upstream.js';

const TOOL = 'shorts_short_screener';
const KEY = 'fake-key-0123456789-SECRET';

/** limit=1: the 200 status line and the body's first bytes, then silence; limit=2: silence before any status line. */
async function stallingUpstream(): Promise<{ url: string; sent: (limit: string) => number; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname === '/v1/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(catalogDocument()));
      return;
    }
    const limit = url.searchParams.get('limit') ?? '';
    seen.push(limit);
    if (limit === '1') {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-stalled' });
      res.write('{"data":[{"ticker":"AAPL",');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: (limit) => seen.filter((l) => l === limit).length,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('a deadline after the 200 status line says the call was most likely charged and not to repeat it as is; one before any status line does not', async () => {
  const upstream = await stallingUpstream();
  const server = await connectV2({ baseUrl: upstream.url, key: KEY, env: { MARKET_DATA_DEADLINE_MS: '1500' } });
  try {
    const charged = errorOf(await server.client.callTool({ name: TOOL, arguments: { limit: 1 } }));
    assert.equal(charged.code, 'DEADLINE_EXCEEDED');
    assert.equal(charged.charged, true);
    assert.match(charged.message, /charged/);
    assert.match(`${charged.hint ?? ''}`, /not retry as is/i);
    assert.match(`${charged.hint ?? ''}`, /MARKET_DATA_DEADLINE_MS/);
    assert.equal(charged.action, 'do_not_retry');
    assert.equal(upstream.sent('1'), 1, 'sent once, not retried');

    const unanswered = errorOf(await server.client.callTool({ name: TOOL, arguments: { limit: 2 } }));
    assert.equal(unanswered.code, 'DEADLINE_EXCEEDED');
    assert.notEqual(unanswered.charged, true);
    assert.doesNotMatch(unanswered.message, /charged/);
    assert.notEqual(unanswered.action, 'do_not_retry');
    assert.equal(upstream.sent('2'), 1);

    for (const error of [charged, unanswered]) assert.doesNotMatch(JSON.stringify(error), /SECRET/);
  } finally {
    await server.close();
    await upstream.close();
  }
});
