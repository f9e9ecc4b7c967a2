/**
 * A date range done here over an upstream that pages its list and ends it: when the rows
 * read never reach back to `from`, the answer says how far back the upstream's list goes
 * and does not claim to cover the part it could not read. Run against the vendor dialect
 * (no range parameters, fixed pages), through the built binary over stdio.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payloadParts, rowsIn } from '../../src/api/payload-parts.js';
import { get, withSimulator } from '../helpers/http.js';
import { connectV1, textOf } from '../helpers/mcp.js';

const KEY = 'sim-admin-key';
const ROOMY = { limits: { perWindow: 100_000, perIpPerWindow: 100_000 } };
const PATH = '/v1/market/total-options-volume';
type Row = Record<string, unknown>;

const shiftDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T12:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

test('vendor: a range older than the upstream list reaches says so, and covers only what was read', async () => {
  await withSimulator({ ...ROOMY, dialect: 'vendor' }, async (sim) => {
    // The oldest date the upstream's own list reaches, read with its own cursor.
    const dates: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page += 1) {
      const response = await get(sim, `${PATH}${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, KEY);
      assert.equal(response.status, 200);
      const parts = payloadParts(response.body);
      for (const row of (rowsIn(parts.data) ?? []) as Row[]) if (typeof row['date'] === 'string') dates.push(row['date']);
      cursor = parts.nextCursor;
      if (!cursor) break;
    }
    assert.ok(dates.length > 0, 'the upstream lists dated rows');
    const oldest = dates.reduce((a, b) => (a < b ? a : b));
    const server = await connectV1({ baseUrl: sim.url, key: KEY });
    try {
      const call = async (args: Record<string, unknown>): Promise<{ data: Row[]; meta: Record<string, unknown> }> => {
        const result = await server.client.callTool({ name: 'market_total_options_volume', arguments: args });
        assert.notEqual(result.isError, true, textOf(result as never).slice(0, 300));
        return result.structuredContent as { data: Row[]; meta: Record<string, unknown> };
      };
      const before = { from: shiftDays(oldest, -30), to: shiftDays(oldest, -5) };
      const wholly = await call(before);
      assert.deepEqual(wholly.data, []);
      assert.match(String(wholly.meta['notice']), new RegExp(`reaches back only to ${oldest}`), 'the notice says where the list ends');
      assert.doesNotMatch(String(wholly.meta['covers']), new RegExp(`^${before.from} to`), 'no claim to cover the range not read');

      const straddling = { from: shiftDays(oldest, -30), to: shiftDays(oldest, 10) };
      const part = await call(straddling);
      assert.ok(part.data.length > 0, 'the part of the range the list reaches is answered');
      assert.equal(part.meta['covers'], `${oldest} to ${straddling.to}`, 'covers starts where the rows read start');
      assert.match(String(part.meta['notice']), new RegExp(`reaches back only to ${oldest}`));
    } finally {
      await server.close();
    }
  });
});
