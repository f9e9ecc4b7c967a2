/**
 * api_status is what the rate-limit error tells an agent to call: it must not spend the
 * rate it reports. It answers from the gate and a discover of the last minute.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { withSimulator } from '../helpers/http.js';
import { connectV2 } from '../helpers/mcp.js';

interface Status {
  summary: string;
  cannot_use: Record<string, string[]>;
  key: { configured: boolean; ok: boolean | null; access_scope?: unknown };
}

test('api_status three times in a minute: at most one free request, no data request, one line first, at most 300 tokens', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-narrow-key' });
    try {
      await client.listTools();
      const before = sim.api.requests.length;
      const answers: Status[] = [];
      for (let i = 0; i < 3; i += 1) {
        const result = await client.callTool({ name: 'api_status', arguments: {} });
        assert.notEqual(result.isError, true);
        // About 240 tokens, the line of what calls spend in requests (issue 32) about 50 more, and
        // for this narrow key the tools it may call in part (about 10; 308 in all when written).
        const tokens = countTokens(JSON.stringify(result.structuredContent));
        assert.ok(tokens <= 320, `${tokens} tokens`);
        answers.push(result.structuredContent as Status);
      }
      const sent = sim.api.requests.slice(before);
      assert.ok(sent.length <= 1, `requests sent: ${sent.map((r) => r.path).join(', ')}`);
      assert.equal(sent.filter((r) => r.charged).length, 0);
      assert.ok(
        sent.every((r) => r.path === '/v1/discover'),
        'only discover',
      );
      for (const status of answers) {
        assert.equal(Object.keys(status)[0], 'summary');
        assert.doesNotMatch(status.summary, /\n/);
        assert.match(status.summary, /^Key OK\./);
        assert.ok(Object.values(status.cannot_use).flat().includes('shorts_*'), 'the toolset out of scope is named');
      }
      const detailed = (await client.callTool({ name: 'api_status', arguments: { details: true } })).structuredContent as Status;
      assert.ok(Array.isArray(detailed.key.access_scope), 'details give the scopes');
      assert.ok(Object.values(detailed.cannot_use).flat().includes('shorts_short_screener'), 'details name every tool');
    } finally {
      await close();
    }
  });
});

test('api_status without a key says "no key configured", sends nothing, and never calls the key broken', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url });
    try {
      const before = sim.api.requests.filter((r) => r.path !== '/v1/openapi.json').length;
      const status = (await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as Status;
      assert.match(status.summary, /no key configured/i);
      assert.doesNotMatch(status.summary, /NOT working/);
      assert.equal(status.key.configured, false);
      assert.equal(sim.api.requests.filter((r) => r.path !== '/v1/openapi.json').length, before, 'nothing sent');
    } finally {
      await close();
    }
  });
});
