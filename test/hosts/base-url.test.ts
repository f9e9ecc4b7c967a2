/**
 * A base URL that is not the API is named as such (issue 33): one ending in /v1 read
 * "Key NOT working (NOT_FOUND)", blaming a good key. At start (the log) and in api_status
 * the server says the URL is wrong and what to set; a wrong key is still a wrong key.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';
import { eventually } from '../helpers/wait.js';

interface Status {
  summary: string;
  key: { ok: boolean | null };
  server: { config_warnings: string[] };
}

async function statusOf(baseUrl: string, key: string): Promise<{ status: Status; stderr: string }> {
  const { client, close, stderr } = await connectV2({ baseUrl, key, env: { MARKET_DATA_LOG_LEVEL: 'warn' } });
  try {
    const status = (await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as Status;
    return { status, stderr: stderr() };
  } finally {
    await close();
  }
}

test('a base URL ending in /v1 is named at start and in api_status, with the root to set; the key is not blamed', async () => {
  await withSimulator({}, async (sim) => {
    const { status, stderr } = await statusOf(`${sim.url}/v1`, 'sim-live-key');
    const fix = `set it to the API's root, ${sim.url}.`;
    assert.ok(stderr.includes('MARKET_DATA_BASE_URL ends in /v1') && stderr.includes(fix), `the start log names it: ${stderr.slice(-600)}`);
    assert.match(status.summary, /^Base URL NOT the API, so the key is not checked yet: /);
    assert.ok(status.summary.includes(`GET ${sim.url}/v1/v1/discover answered 404`), status.summary);
    assert.ok(status.summary.includes(`Set it to ${sim.url} (the server adds /v1 itself).`), status.summary);
    assert.doesNotMatch(status.summary, /Key NOT working/);
    assert.equal(status.key.ok, null, 'neither good nor bad: not asked');
    assert.ok(status.server.config_warnings.some((w) => w.includes(fix)));

    // The same server at the right URL with a revoked key: that one is the key's fault.
    const revoked = await statusOf(sim.url, 'sim-revoked-key');
    assert.match(revoked.status.summary, /^Key NOT working \(AUTH_INVALID\)/);
  });
});

test('a base URL that answers with a web page (200 or 404) is named at start and in api_status', async () => {
  const site = createServer((req, res) => {
    // A documentation site: its pages under /docs, and its own 404 page elsewhere.
    const found = req.url?.startsWith('/docs') === true;
    res.writeHead(found ? 200 : 404, { 'content-type': 'text/html' }).end('<!doctype html><title>Market Data docs</title>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  try {
    for (const [path, answered] of [
      ['/docs', 'with a page that is not JSON'],
      ['/site', '404 (NOT_FOUND)'],
    ] as const) {
      const { client, close, stderr } = await connectV2({
        baseUrl: `${origin}${path}`,
        key: 'a-good-key-0123456789',
        env: { MARKET_DATA_LOG_LEVEL: 'warn' },
      });
      try {
        // At start: the server reads the API's openapi.json before its first answer.
        await eventually(() => stderr().includes('does not point at the API'), 'the start log names the base URL');
        assert.ok(stderr().includes(`GET ${origin}${path}/v1/openapi.json answered ${answered}`), stderr().slice(-600));
        const status = (await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as Status;
        assert.ok(status.summary.startsWith('Base URL NOT the API'), status.summary);
        assert.ok(status.summary.includes(`GET ${origin}${path}/v1/discover answered ${answered}`), status.summary);
        assert.doesNotMatch(status.summary, /Key NOT working/);
      } finally {
        await close();
      }
    }
  } finally {
    site.closeAllConnections();
    await new Promise<void>((resolve) => site.close(() => resolve()));
  }
});
