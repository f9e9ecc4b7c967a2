/**
 * A tool the key cannot call says so in the tool list, once discover (free) has said it:
 * in demo mode from the first list (the demo key is a standard account's, and the flow
 * overview is open to administrator accounts only), and with a real key once its scope is
 * known (api_status asked discover); before that, nothing is marked and nothing hidden.
 * Through the built binary, as a host lists and calls the tools.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';
import { eventually } from '../helpers/wait.js';

const NOTE = /^Not for this key \(discover: [^)]+\): calls answer SCOPE_INSUFFICIENT\./;

async function toolList(client: Client): Promise<{ names: string[]; marked: string[] }> {
  const { tools } = await client.listTools();
  return { names: tools.map((t) => t.name).sort(), marked: tools.filter((t) => NOTE.test(t.description ?? '')).map((t) => t.name) };
}

/** The tools api_status says this key cannot use for want of scope or account (not those disabled for a while). */
async function cannotUse(client: Client): Promise<string[]> {
  const status = await client.callTool({ name: 'api_status', arguments: { details: true } });
  const groups = (status.structuredContent as { cannot_use: Record<string, string[]> }).cannot_use;
  return Object.entries(groups)
    .filter(([reason]) => reason !== 'disabled for now')
    .flatMap(([, tools]) => tools)
    .sort();
}

test('--demo: every tool the demo key cannot call says so first in its description, and its call answers SCOPE_INSUFFICIENT', async () => {
  const server = await connectV2({ args: ['--demo'] });
  try {
    const { marked } = await toolList(server.client);
    assert.ok(marked.length > 0, 'the demo key is a standard one: some tool is closed to it');
    assert.deepEqual(marked.sort(), await cannotUse(server.client), 'marked: exactly what discover says the key cannot call');
    const { tools } = await server.client.listTools();
    for (const name of marked) {
      const required = tools.find((t) => t.name === name)?.inputSchema.required ?? [];
      const error = errorOf(await server.client.callTool({ name, arguments: required.includes('ticker') ? { ticker: 'SPY' } : {} }));
      assert.equal(error.code, 'SCOPE_INSUFFICIENT', `${name}: ${JSON.stringify(error)}`);
    }
  } finally {
    await server.close();
  }
});

test('a real key: nothing is marked or hidden while its scope is unknown; once discover answered, what it cannot call says so', async () => {
  await withSimulator({}, async (sim) => {
    const server = await connectV2({ baseUrl: sim.url, key: 'sim-narrow-key' });
    try {
      const before = await toolList(server.client);
      assert.deepEqual(before.marked, [], 'scope unknown: no tool is marked');
      const closed = await cannotUse(server.client);
      assert.ok(closed.length > 0, 'the narrow key lacks some scopes');
      assert.ok(
        closed.every((name) => before.names.includes(name)),
        'scope unknown: none was hidden',
      );
      let after = before;
      await eventually(async () => {
        after = await toolList(server.client);
        return after.marked.length > 0;
      }, 'the tool list follows discover');
      assert.deepEqual(after.marked.sort(), closed);
      assert.deepEqual(after.names, before.names, 'marked, not hidden');
    } finally {
      await server.close();
    }
  });
});
