/**
 * The tools that are not datasets hold to the rules every dataset tool keeps: api_status
 * refuses names it does not take (and drops a host's own), and answers `cannot_use` in
 * one shape with or without details; volatility_compare's meta counts its units and
 * carries its request ids; the start log counts the tools tools/list offers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';
import { eventually } from '../helpers/wait.js';

interface Status {
  summary: string;
  cannot_use: unknown;
}

/** A record of reason → tool names, the one shape `cannot_use` has. */
function byReason(value: unknown): Record<string, string[]> {
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `an object: ${JSON.stringify(value)}`);
  for (const tools of Object.values(value)) {
    assert.ok(Array.isArray(tools) && tools.length > 0, `tools listed under each reason: ${JSON.stringify(tools)}`);
    for (const tool of tools as unknown[]) assert.equal(typeof tool, 'string');
  }
  return value as Record<string, string[]>;
}

test('api_status refuses an unknown argument or a details that is not a boolean before any request; drops a host control property', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-narrow-key' });
    try {
      await client.listTools();
      const before = sim.api.requests.length;
      const unknown = errorOf(await client.callTool({ name: 'api_status', arguments: { verbose: true } }));
      assert.equal(unknown.code, 'VALIDATION_ERROR');
      assert.match(unknown.message, /Unknown parameter "verbose"/);
      assert.match(unknown.hint ?? '', /details/);
      const typed = errorOf(await client.callTool({ name: 'api_status', arguments: { details: 'yes' } }));
      assert.equal(typed.code, 'VALIDATION_ERROR');
      assert.equal(sim.api.requests.length, before, 'refused before any request');
      const gemini = await client.callTool({ name: 'api_status', arguments: { wait_for_previous: true, details: null } });
      assert.notEqual(gemini.isError, true, 'a host control property and a null are not refused');
    } finally {
      await close();
    }
  });
});

test("api_status: cannot_use has one shape, reason → tools; details name every tool under the default's reasons", async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-narrow-key' });
    try {
      const short = byReason(((await client.callTool({ name: 'api_status', arguments: {} })).structuredContent as Status).cannot_use);
      const full = byReason(
        ((await client.callTool({ name: 'api_status', arguments: { details: true } })).structuredContent as Status).cannot_use,
      );
      const shortTools = Object.values(short).flat();
      const fullTools = Object.values(full).flat();
      assert.ok(shortTools.length > 0, 'this key cannot use some tools');
      // A toolset the default names as `shorts_*` is listed tool by tool in details.
      for (const name of shortTools) {
        const covered = name.endsWith('_*') ? fullTools.some((t) => t.startsWith(name.slice(0, -1))) : fullTools.includes(name);
        assert.ok(covered, `${name} is in details`);
      }
      assert.ok(fullTools.length >= shortTools.length);
    } finally {
      await close();
    }
  });
});

test("volatility_compare's meta says the units spent (none when cached) and carries each request's id", async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const charged = (): number => sim.api.requests.filter((r) => r.charged).length;
      const mark = charged();
      const args = { tickers: 'AAPL,MSFT,ZZZZ' };
      const first = (await client.callTool({ name: 'volatility_compare', arguments: args })).structuredContent as {
        meta: { units: number; request_id?: string; request_ids?: string[] };
      };
      assert.equal(first.meta.units, charged() - mark, 'units are the charged requests');
      assert.ok(first.meta.units > 0);
      const ids = first.meta.request_ids ?? [];
      assert.equal(new Set(ids).size, first.meta.units, 'one id per request read');
      assert.equal(first.meta.request_id, ids[0]);
      // Gemini CLI adds wait_for_previous to every call: dropped, as the dataset tools drop it.
      const again = await client.callTool({ name: 'volatility_compare', arguments: { ...args, wait_for_previous: true } });
      assert.notEqual(again.isError, true, JSON.stringify(again).slice(0, 300));
      assert.equal((again.structuredContent as { meta: { units: number } }).meta.units, 0, 'answered from the cache');
    } finally {
      await close();
    }
  });
});

for (const toolsets of [undefined, 'shorts']) {
  test(`the stdio start log counts the tools tools/list offers (${toolsets ?? 'all toolsets'})`, async () => {
    const { client, stderr, close } = await connectV2({
      args: ['--demo'],
      ...(toolsets ? { env: { MARKET_DATA_TOOLSETS: toolsets } } : {}),
    });
    try {
      const listed = (await client.listTools()).tools.length;
      await eventually(() => /serving on stdio/.test(stderr()), 'the start log');
      const line = stderr()
        .split('\n')
        .find((l) => l.includes('serving on stdio'));
      assert.equal((JSON.parse(line ?? '{}') as { tools?: number }).tools, listed);
    } finally {
      await close();
    }
  });
}
