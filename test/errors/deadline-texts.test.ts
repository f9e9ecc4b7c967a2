/**
 * DEADLINE_EXCEEDED and CANCELLED as an agent reads them: every token of a tool error is
 * paid for, so each says its code, its hint, the retry guidance and the charge in few
 * words; and a deadline that passed before a part of a call was sent says it was not
 * charged (`charged: false`), as every other error that knows says it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { deadlineExceeded, partDeadlinePassed } from '../../src/api/deadline-error.js';
import { cancelledError } from '../../src/api/errors.js';
import { errorResult } from '../../src/mcp/answers/tool-errors.js';
import { createServer } from '../../src/mcp/server.js';
import { withHandler } from '../../src/mcp/tool.js';
import { createRuntime } from '../../src/runtime.js';
import { withSimulator } from '../helpers/http.js';
import { errorOf, freshCacheDir, textOf } from '../helpers/mcp.js';
import { startSimProxy } from '../helpers/sim-proxy.js';

/** The tool error an agent reads (text: the guidance, then the error as JSON), its tokens and its error. */
function asRead(error: ReturnType<typeof cancelledError>): { tokens: number; error: ReturnType<typeof errorOf> } {
  const result = errorResult(error);
  return { tokens: countTokens(textOf(result)), error: errorOf(result) };
}

test('DEADLINE_EXCEEDED and CANCELLED fit in few tokens and still carry the code, the hint, the retry guidance and the charge', () => {
  // Ceilings in o200k tokens of the whole text (guidance line and JSON); the texts before were 234, 171, 113, 127 and 118.
  const cases = [
    { name: 'deadline after a 200', error: deadlineExceeded(true), most: 165, action: 'do_not_retry', charged: true },
    { name: 'deadline, nothing charged', error: deadlineExceeded(false), most: 120, action: 'retry_after_wait', charged: false },
    { name: 'deadline in flight', error: deadlineExceeded(undefined), most: 105, action: 'retry_after_wait', charged: undefined },
    { name: 'part not sent', error: partDeadlinePassed('ticker'), most: 120, action: 'retry_after_wait', charged: false },
    { name: 'shutdown', error: cancelledError('shutdown'), most: 105, action: 'retry_later', charged: undefined },
  ];
  for (const c of cases) {
    const { tokens, error } = asRead(c.error);
    assert.ok(tokens <= c.most, `${c.name}: ${tokens} tokens, at most ${c.most}`);
    assert.ok(['DEADLINE_EXCEEDED', 'CANCELLED'].includes(error.code), c.name);
    assert.ok(error.hint && error.hint.length > 0, `${c.name} has a hint`);
    assert.equal(error.action, c.action, c.name);
    assert.equal(error.charged, c.charged, `${c.name}: charged`);
    if (c.action === 'retry_after_wait') assert.equal(error.retry_after_seconds, 1, c.name);
  }
  const charged = asRead(deadlineExceeded(true)).error;
  assert.match(charged.message, /charged/);
  assert.match(charged.hint ?? '', /not retry as is/i);
  assert.match(charged.hint ?? '', /MARKET_DATA_DEADLINE_MS/);
  // A guidance line says "do not retry" once, not in the hint's words and again in its own.
  assert.equal(textOf(errorResult(deadlineExceeded(true))).match(/not (retry|repeat)/gi)?.length, 2, 'once in the line, once in the JSON');
});

test('a deadline that passed before any part of a call was sent says charged: false, and nothing reaches the upstream', async () => {
  await withSimulator({}, async (sim) => {
    const proxy = await startSimProxy(sim.url, () => ({}));
    // Every tool call runs as one whose deadline has just passed (as after a long wait for its turn).
    const runtime = await createRuntime(
      {
        MARKET_DATA_BASE_URL: proxy.url,
        MARKET_DATA_API_KEY: 'sim-live-key',
        MARKET_DATA_LOG_LEVEL: 'silent',
        MARKET_DATA_CACHE_DIR: freshCacheDir(),
      },
      { middleware: (tool) => withHandler(tool, (args, ctx, call) => tool.handler(args, ctx, { ...call, deadline: Date.now() - 1 })) },
    );
    await runtime.registry.documentRead();
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const server = createServer(runtime.deps);
    const client = new Client({ name: 'deadline-texts', version: '1' });
    try {
      await server.connect(serverTransport);
      await client.connect(clientTransport);
      const before = proxy.seen.length;
      for (const [name, args] of [
        ['volatility_compare', { tickers: 'SPY,QQQ' }],
        ['derived_dealer_gex_compare', { tickers: 'SPY,QQQ' }],
      ] as const) {
        const error = errorOf(await client.callTool({ name, arguments: args }));
        assert.equal(error.code, 'DEADLINE_EXCEEDED', name);
        assert.equal(error.charged, false, `${name}: ${JSON.stringify(error)}`);
        assert.equal(error.action, 'retry_after_wait', name);
      }
      assert.deepEqual(proxy.seen.slice(before), [], 'nothing was sent');
    } finally {
      await client.close();
      await runtime.close();
      await proxy.close();
    }
  });
});
