/**
 * Every tool's advertised `limit` maximum is one the API serves: through the built binary on
 * the simulator's dialect (MARKET_DATA_SIM_DIALECT), a call at the maximum tools/list gives
 * (schema keyword, or the words of the description where a host strips keywords) is not
 * refused RESPONSE_TOO_LARGE by the API's response-size ceiling (256 KiB in the simulator).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, textOf } from '../helpers/mcp.js';

const ROOMY = { limits: { perWindow: 100_000, perIpPerWindow: 100_000 } };

interface Property {
  maximum?: number;
  description?: string;
}

/** The maximum a model is told: the schema's, else "1-N" in the description. */
function advertisedMaximum(property: Property): number | undefined {
  if (typeof property.maximum === 'number') return property.maximum;
  const words = /\b1-(\d+)\b/.exec(property.description ?? '');
  return words?.[1] ? Number(words[1]) : undefined;
}

test('a call at each tool’s advertised limit maximum is served within the API’s response-size ceiling', async () => {
  await withSimulator(ROOMY, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-admin-key' });
    try {
      const { tools } = await client.listTools();
      const checked: string[] = [];
      for (const tool of tools) {
        const properties = (tool.inputSchema.properties ?? {}) as Record<string, Property>;
        const limit = properties['limit'];
        const maximum = limit ? advertisedMaximum(limit) : undefined;
        if (maximum === undefined) continue;
        const required = tool.inputSchema.required ?? [];
        if (required.some((name) => name !== 'ticker')) continue;
        const args: Record<string, unknown> = { limit: maximum, ...(required.includes('ticker') ? { ticker: 'SPY' } : {}) };
        const result = await client.callTool({ name: tool.name, arguments: args });
        assert.doesNotMatch(textOf(result), /RESPONSE_TOO_LARGE/, `${tool.name} at its advertised limit ${maximum}`);
        checked.push(`${tool.name}:${maximum}`);
      }
      // The two whose rows once passed the ceiling far below their maximum are among those checked.
      for (const name of ['stocks_lit_trades_recent', 'stocks_ticker_exchanges'])
        assert.ok(
          checked.some((c) => c.startsWith(`${name}:`)),
          `${name} checked: ${checked.join(', ')}`,
        );
    } finally {
      await close();
    }
  });
});
