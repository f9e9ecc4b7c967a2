import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import * as z from 'zod';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { dealerToolSnapshot } from '../../src/catalog/index.js';
import { toolMetaSchema } from '../../src/mcp/answers/results.js';
import type { Tool } from '@modelcontextprotocol/client';
import { withSimulator } from '../helpers/http.js';
import { eventually } from '../helpers/wait.js';
import { CLI, connectV1, connectV2, serverEnv } from '../helpers/mcp.js';
import { ETF_FLOWS } from '../helpers/fixtures.js';
import { lastFullSession } from '../helpers/sessions.js';

test('a dataset registered upstream that the catalog does not know becomes a tool with its parameters', async () => {
  await withSimulator({ extraDatasets: [ETF_FLOWS] }, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      // Listed once the document is read: at start, or a moment later with tools/list_changed,
      // as a host hears it (on a loaded machine the document may come after the start's wait).
      const listed = async (): Promise<Tool | undefined> => (await client.listTools()).tools.find((t) => t.name === 'etf_flows_by_ticker');
      await eventually(async () => (await listed()) !== undefined, 'etf_flows_by_ticker is listed');
      const tool = await listed();
      assert.ok(tool, 'etf_flows_by_ticker is listed');
      const props = (tool.inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
      // Bounds and patterns in words, which every host shows its model (Codex strips the keywords).
      assert.deepEqual(props['days'], { type: 'integer', description: '[not reviewed] Days of history, 1 to 90.' });
      assert.match(String(props['ticker']?.['description']), /Upper case, e\.g\. AAPL or BRK\.B/);
      const ok = await client.callTool({ name: 'etf_flows_by_ticker', arguments: { ticker: 'SPY', days: 5 } });
      assert.notEqual(ok.isError, true);
      const bad = await client.callTool({ name: 'etf_flows_by_ticker', arguments: { ticker: 'SPY', days: 500 } });
      assert.equal((bad.structuredContent as { error: { code: string } }).error.code, 'VALIDATION_ERROR');
      const lower = await client.callTool({ name: 'etf_flows_by_ticker', arguments: { ticker: 'spy' } });
      assert.equal((lower.structuredContent as { error: { code: string } }).error.code, 'TICKER_INVALID');
    } finally {
      await close();
    }
  });
});

// The snapshot as the tool answers it: the API's fields, and `state_normalized` beside a state
// the upstream spells otherwise (CLOSED, final), as the tool's output schema declares.
const dealerResult = z.object({ data: z.array(dealerToolSnapshot.strict()), meta: toolMetaSchema.strict() }).strict();

test('the dealer GEX result conforms to its output schema, and a large one is trimmed with its cursor', async () => {
  const { client, close } = await connectV2({ args: ['--demo'], env: { MARKET_DATA_RESULT_TOKENS: '3000' } });
  try {
    const small = await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY', limit: 1 } });
    const parsedSmall = dealerResult.safeParse(small.structuredContent);
    assert.ok(parsedSmall.success, JSON.stringify(parsedSmall.error?.issues.slice(0, 3)));
    assert.equal(parsedSmall.data.meta.trimmed, undefined);

    const large = await client.callTool({
      name: 'derived_dealer_gex_history',
      arguments: { ticker: 'SPY', view: 'full', session_date: lastFullSession(), limit: 20 },
    });
    const parsed = dealerResult.safeParse(large.structuredContent);
    assert.ok(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3)));
    const { data, meta } = parsed.data;
    assert.equal(meta.truncated, true);
    assert.ok(meta.trimmed && meta.trimmed.rows_returned + meta.trimmed.rows_left === 20, JSON.stringify(meta.trimmed));
    assert.equal(data.length, meta.trimmed.rows_returned);
    assert.ok(meta.next_cursor, 'a cursor continues after the last snapshot shown');
    assert.match(meta.trimmed.how_to_get_more, /follow meta.next_cursor/i);
    assert.ok(countTokens(JSON.stringify(large.structuredContent)) <= 3000, 'within the budget, in o200k tokens');
    const text = (large.content as { text: string }[])[0]?.text ?? '';
    assert.deepEqual(JSON.parse(text), large.structuredContent, 'the text block is the same JSON, compact');
    assert.ok(!text.includes('\n  '), 'compact');
  } finally {
    await close();
  }
});

test('fields projects rows to the columns asked for', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const result = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 3, fields: ['ticker', 'short_float_pct'] } });
    const rows = (result.structuredContent as { data: Record<string, unknown>[] }).data;
    assert.equal(rows.length, 3);
    for (const row of rows) assert.deepEqual(Object.keys(row), ['ticker', 'short_float_pct']);
  } finally {
    await close();
  }
});

test('progress arrives while a call waits for a 202, with both SDK clients', async () => {
  // Waits for real: the server is another process, which cannot share a fake clock. The
  // 202's Retry-After is whole seconds, so the shortest real wait is one poll of 1 s.
  await withSimulator({ materializationMs: 1000 }, async (sim) => {
    const v2 = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const updates: { message?: string | undefined }[] = [];
      const result = await v2.client.callTool(
        { name: 'institutions_ownership_by_ticker', arguments: { ticker: 'NVDA' } },
        { onprogress: (p) => updates.push(p) },
      );
      assert.notEqual(result.isError, true);
      assert.ok(updates.length >= 1, 'at least one progress notification');
      assert.match(updates[0]?.message ?? '', /building this dataset/);
    } finally {
      await v2.close();
    }
    const v1 = await connectV1({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      const updates: unknown[] = [];
      await v1.client.callTool({ name: 'stocks_dividends', arguments: { ticker: 'KO' } }, undefined, {
        onprogress: (p) => updates.push(p),
      });
      assert.ok(updates.length >= 1);
    } finally {
      await v1.close();
    }
  });
});

test('cancelling a call aborts its upstream request', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      sim.api.faults.latencyMs = 5000;
      const controller = new AbortController();
      const call = client.callTool({ name: 'market_oi_change', arguments: {} }, { signal: controller.signal });
      await eventually(() => sim.api.inFlight('acct_live').now === 1, 'the request in flight upstream');
      controller.abort('the user clicked stop');
      await assert.rejects(call);
      // Well before the 5 s latency would have ended it.
      await eventually(() => sim.api.inFlight('acct_live').now === 0, 'the upstream request to be aborted', 3000);
    } finally {
      sim.api.faults.latencyMs = 0;
      await close();
    }
  });
});

test('stdout carries only JSON-RPC, and the key appears in no output', async () => {
  await withSimulator({}, async (sim) => {
    const secret = 'sk-e2e-7c1d9f0b2a4e6c8d';
    sim.api.book.createKey('acct_admin', undefined, secret);
    const child = spawn(process.execPath, [CLI], {
      env: { ...serverEnv({ baseUrl: sim.url, key: secret }), MARKET_DATA_LOG_LEVEL: 'trace' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const send = (message: object): void => void child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'market_oi_change', arguments: {} } });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'stocks_dividends', arguments: { ticker: 'ZZZZ' } } });
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'api_status', arguments: {} } });
    // Every answer, not only the last one sent: the calls run at once and may answer in any
    // order, and a request still running when stdin ends is not answered (the SDK's stdio
    // transport closes on end-of-file, as the MCP stdio binding asks).
    await eventually(() => [1, 2, 3, 4, 5].every((id) => stdout.includes(`"id":${id}`)), 'an answer to every request');
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    const lines = stdout.split('\n').filter((l) => l.length > 0);
    assert.ok(lines.length >= 5, `responses on stdout: ${lines.length}`);
    for (const line of lines) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, '2.0', line.slice(0, 100));
    assert.ok(stderr.includes('upstream request'), 'logs went to stderr');
    assert.ok(!stdout.includes(secret) && !stderr.includes(secret), 'the key is in no output');
  });
});
