/**
 * Every tool says what it is in the annotations hosts read before a call (issue 33): it
 * only reads, from an open world (market data moves), and the same call again changes
 * nothing; other market-data servers set openWorldHint and idempotentHint too.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2 } from '../helpers/mcp.js';

test('every tool says it only reads, from an open world, and may be called again: readOnly, openWorld and idempotent hints', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const tools = (await client.listTools()).tools;
    assert.ok(tools.length >= 24);
    const off = tools.filter(
      (t) => t.annotations?.readOnlyHint !== true || t.annotations.openWorldHint !== true || t.annotations.idempotentHint !== true,
    );
    assert.deepEqual(
      off.map((t) => t.name),
      [],
    );
  } finally {
    await close();
  }
});
