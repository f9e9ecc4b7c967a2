import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DATASETS } from '../../src/catalog/index.js';
import { dialectFromEnv, isNamedDialect } from '../../src/simulator/dialect.js';
import { withSimulator } from '../helpers/http.js';
import { connectV1, connectV2 } from '../helpers/mcp.js';

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** The whole tools/list a host puts in the model's context; printed so a change shows. */
const TOOLS_LIST_BUDGET_BYTES = 32 * 1024;
const SNAPSHOT = fileURLToPath(new URL('../../../test/snapshots/tool-input-schemas.json', import.meta.url));

const SAMPLE_ARGS: Record<string, Record<string, unknown>> = {
  options_chain_history: { ticker: 'SPY', expiration: '2026-12-18', right: 'C' },
  stocks_sector_tickers: { sector: 'Energy' },
  market_correlations: { tickers: 'SPY,QQQ' },
  macro_forex_rate: { pair: 'EURUSD' },
};

function argsFor(name: string, hasTicker: boolean): Record<string, unknown> {
  return SAMPLE_ARGS[name] ?? (hasTicker ? { ticker: 'SPY' } : {});
}

test('every catalog dataset is a tool, and a valid call reaches its upstream path (v2 client over stdio)', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-admin-key' });
    try {
      const { tools } = await client.listTools();
      const names = new Set(tools.map((t) => t.name));
      for (const dataset of DATASETS) {
        const name = dataset.operationId.replace('.', '_');
        assert.ok(names.has(name), `tool ${name}`);
        const before = sim.api.requests.length;
        const result = await client.callTool({ name, arguments: argsFor(name, dataset.ticker !== undefined) });
        assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.structuredContent).slice(0, 300)}`);
        const expected = dataset.path.replace('{ticker}', 'SPY');
        assert.ok(
          sim.api.requests.slice(before).some((r) => r.path === expected && r.status === 200),
          `${name} reached ${expected}`,
        );
      }
      assert.ok(names.has('api_status'));
    } finally {
      await close();
    }
  });
});

/** Where a JSON Schema uses a `type` array, or an empty schema as a subschema. */
function portabilityProblems(schema: unknown, path: string): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  if (Array.isArray(schema)) return schema.flatMap((item, i) => portabilityProblems(item, `${path}[${i}]`));
  const problems: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && Array.isArray(value)) problems.push(`${path}.type is an array: ${JSON.stringify(value)}`);
    if (
      ['additionalProperties', 'items'].includes(key) &&
      typeof value === 'object' &&
      value !== null &&
      Object.keys(value as object).length === 0
    )
      problems.push(`${path}.${key} is {}`);
    if (key !== 'enum' && key !== 'required') problems.push(...portabilityProblems(value, `${path}.${key}`));
  }
  return problems;
}

test('tools/list passes a wire-level lint: flat object roots, names, descriptions, annotations, total size', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const { tools } = await client.listTools();
    const size = Buffer.byteLength(JSON.stringify(tools));
    process.stderr.write(`tools/list: ${tools.length} tools, ${size} bytes (budget ${TOOLS_LIST_BUDGET_BYTES})\n`);
    assert.ok(size <= TOOLS_LIST_BUDGET_BYTES, `tools/list is ${size} bytes`);
    for (const tool of tools) {
      assert.match(tool.name, NAME);
      assert.ok(tool.description && tool.description.length >= 40 && tool.description.length <= 600, `${tool.name} description length`);
      const schema = tool.inputSchema as Record<string, unknown>;
      assert.equal(schema['type'], 'object', `${tool.name} root is an object`);
      for (const union of ['oneOf', 'anyOf', 'allOf', '$ref']) assert.ok(!(union in schema), `${tool.name} root has no ${union}`);
      assert.equal(schema['additionalProperties'], false);
      // Names that explain themselves (and fields, explained once in the instructions) go undescribed to save tokens.
      for (const [param, body] of Object.entries((schema['properties'] ?? {}) as Record<string, { description?: string }>)) {
        if (!['ticker', 'limit', 'from', 'to', 'fields', 'chamber'].includes(param))
          assert.ok(body.description, `${tool.name}.${param} is described`);
      }
      // Read-only (the destructive hint means nothing then); open world and idempotent are said too (issue 33, test/hosts/tool-selection).
      assert.equal(tool.annotations?.readOnlyHint, true, `${tool.name} is read-only`);
    }
    const dataTools = tools.filter((t) => t.name !== 'api_status');
    assert.ok(dataTools.length >= 22);
    assert.ok(tools.filter((t) => /on demand/i.test(t.description ?? '')).length >= 10, 'on-demand datasets say so');
    const dealer = tools.find((t) => t.name === 'derived_dealer_gex_history');
    assert.deepEqual((dealer?.inputSchema as { properties: Record<string, unknown> }).properties['ticker'], {
      type: 'string',
      pattern: '^[A-Z]{1,5}$',
      description: 'Ticker of 1 to 5 upper-case letters, no suffix (e.g. SPY, QQQ, SPX).',
    });
    assert.ok(dealer?.outputSchema, 'the dealer GEX tool declares an output schema');
    // Portable in every host (the MCP Inspector's --strict check): one `type` per schema, and
    // no schema that constrains nothing but `{}` where a subschema goes.
    for (const tool of tools)
      for (const [where, schema] of [
        ['inputSchema', tool.inputSchema],
        ['outputSchema', tool.outputSchema],
      ] as const)
        for (const problem of portabilityProblems(schema, `${tool.name}.${where}`)) assert.fail(problem);
  } finally {
    await close();
  }
});

/**
 * The snapshot holds the schemas our own document gives (the named dialects publish the same
 * ones under other names). A composed dialect's document states its parameters otherwise (a
 * ticker list as an array, its own bounds and words), which the tools follow by design (issue
 * 29; test/dialects/done-when.test.ts holds them to the document): there is no snapshot of
 * those to compare with.
 */
const COMPOSED = isNamedDialect(dialectFromEnv())
  ? false
  : `${dialectFromEnv().name} is a composed dialect, whose document the tools' schemas follow; the snapshot is of our own document's`;

test('every tool input schema matches the snapshot in test/snapshots (UPDATE_SNAPSHOTS=1 to accept a change)', async (context) => {
  if (COMPOSED) {
    context.skip(COMPOSED);
    return;
  }
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const { tools } = await client.listTools();
    const current = Object.fromEntries([...tools].sort((a, b) => a.name.localeCompare(b.name)).map((t) => [t.name, t.inputSchema]));
    const text = `${JSON.stringify(current, null, 2)}\n`;
    if (process.env['UPDATE_SNAPSHOTS'] === '1') writeFileSync(SNAPSHOT, text);
    assert.deepEqual(
      JSON.parse(text),
      JSON.parse(readFileSync(SNAPSHOT, 'utf8')),
      'a tool schema changed: review it, then run UPDATE_SNAPSHOTS=1 npm test',
    );
  } finally {
    await close();
  }
});

test('the legacy v1 SDK client lists the same tools and gets structured results', async () => {
  const { client, close } = await connectV1({ args: ['--demo'] });
  try {
    const { tools } = await client.listTools();
    // Beside the datasets: api_status, volatility_compare and the three tools over several names.
    assert.equal(tools.length, DATASETS.length + 5);
    const ok = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 3 } });
    assert.notEqual(ok.isError, true);
    const structured = ok.structuredContent as { data: unknown[]; meta: { simulated: boolean; data_source: string } };
    assert.equal(structured.data.length, 3);
    assert.equal(structured.meta.simulated, true, 'demo results say they are simulated');
    const bad = await client.callTool({ name: 'stocks_dividends', arguments: { ticker: 'spy' } });
    assert.equal(bad.isError, true);
    assert.equal((bad.structuredContent as { error: { code: string } }).error.code, 'TICKER_INVALID');
  } finally {
    await close();
  }
});

test('an unknown tool stays a protocol error', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }));
  } finally {
    await close();
  }
});
