/**
 * One row too wide for the result budget comes back cut inside (some of its fields, said
 * to be cut), never as `data: null` beside `rows_returned: 1` (trial of issue 19, item 7).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, textOf } from '../helpers/mcp.js';
import { withFakeUpstream } from '../helpers/fake-upstream.js';

const FIELDS = 20_000;

test('a row of 20,000 fields over the budget comes back with part of its fields, marked cut, not as null', async () => {
  await withFakeUpstream(async (fake) => {
    const row: Record<string, number> = {};
    for (let i = 0; i < FIELDS; i += 1) row[`field_${i}`] = i;
    fake.answer = () => ({ body: { data: [row] } });
    const server = await connectV2({ baseUrl: fake.url, key: 'fake-key-0123456789' });
    try {
      const result = await server.client.callTool({ name: 'stocks_lit_trades_recent', arguments: {} });
      assert.notEqual(result.isError, true, textOf(result));
      const answer = JSON.parse(textOf(result)) as {
        data: Record<string, number>[] | null;
        meta: { truncated: boolean; trimmed?: { rows_returned: number; how_to_get_more: string } };
      };
      assert.ok(Array.isArray(answer.data) && answer.data.length === 1, `the row is there: ${JSON.stringify(answer.data)?.slice(0, 200)}`);
      const kept = Object.entries(answer.data[0] ?? {});
      assert.ok(kept.length > 0 && kept.length < FIELDS, `part of the fields: ${kept.length}`);
      assert.ok(
        kept.every(([name, value]) => row[name] === value),
        'every field kept has its own value',
      );
      assert.equal(answer.meta.truncated, true);
      assert.equal(answer.meta.trimmed?.rows_returned, 1);
      assert.match(answer.meta.trimmed?.how_to_get_more ?? '', /cut/);
    } finally {
      await server.close();
    }
  });
});
