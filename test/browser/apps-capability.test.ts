/**
 * Hosts without MCP Apps lose nothing: the same text and structuredContent; only a host
 * that declares the io.modelcontextprotocol/ui extension is told a view shows the result.
 * Runs on the built server in --demo, chromium or not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectUiClient, viewHtml } from './harness.js';

/**
 * Meta that describes the request rather than the data: when it was answered (the data's
 * age then, and as_of derived from it) and the account's counters at that moment.
 */
const PER_REQUEST = [
  'as_of',
  'data_freshness_seconds',
  'age_seconds',
  'request_id',
  'rate_limit_remaining',
  'quota_remaining',
  'quota_remaining_pct',
];

/** A result without the meta that depends on when and by whom it was asked (not on what it says). */
function timeless(structured: unknown): unknown {
  const { meta, ...rest } = structured as { meta: Record<string, unknown> };
  const stable = { ...meta };
  for (const name of PER_REQUEST) delete stable[name];
  return { ...rest, meta: stable };
}

const LINKED = ['derived_dealer_gex_history', 'shorts_short_screener', 'shorts_volume_and_ratio', 'shorts_volumes_by_exchange'];

test('tools link their view; a result mentions it only to a host that renders views', async () => {
  const withViews = await connectUiClient(true);
  const without = await connectUiClient(false);
  try {
    for (const name of LINKED) {
      const meta = without.tools.get(name)?._meta as { ui?: { resourceUri?: string }; 'ui/resourceUri'?: string } | undefined;
      assert.match(meta?.ui?.resourceUri ?? '', /^ui:\/\/market-data-mcp\//, `${name} links a view`);
      assert.equal(meta?.['ui/resourceUri'], meta?.ui?.resourceUri, 'the legacy key too, as registerAppTool writes it');
    }
    assert.equal(without.tools.get('api_status')?._meta?.['ui'], undefined, 'tools without a picture link none');

    const args = { name: 'shorts_short_screener', arguments: { limit: 5 } };
    const plain = await without.client.callTool(args);
    const rendered = await withViews.client.callTool(args);
    assert.equal(plain.content.length, 1, 'a host without views gets the result as before');
    // Two calls, two answers: the same facts, but meta says how old they were at the moment of
    // each answer (data_freshness_seconds, whole seconds, and as_of = now minus that) and what
    // the account had left, which move between calls. Everything else must be identical.
    assert.deepEqual(timeless(rendered.structuredContent), timeless(plain.structuredContent));
    const asOf = (r: typeof plain): number => Date.parse(String((r.structuredContent as { meta: { as_of: string } }).meta.as_of));
    assert.ok(Math.abs(asOf(rendered) - asOf(plain)) <= 2000, 'as_of names the same instant, to the second the upstream gives');
    const first = rendered.content[0];
    const plainFirst = plain.content[0];
    assert.ok(first?.type === 'text' && plainFirst?.type === 'text');
    assert.deepEqual(JSON.parse(first.text), rendered.structuredContent, 'the text block is the structured result');
    assert.deepEqual(timeless(JSON.parse(first.text)), timeless(JSON.parse(plainFirst.text)), 'the text block is unchanged');
    assert.equal(rendered.content.length, 2);
    const note = rendered.content[1];
    assert.ok(note?.type === 'text' && /interactive chart/.test(note.text), 'the extra block says the person sees a chart');

    const refused = await withViews.client.callTool({
      name: 'shorts_volume_and_ratio',
      arguments: { ticker: 'not a ticker' },
    });
    assert.equal(refused.isError, true);
    assert.ok(!refused.content.some((c) => c.type === 'text' && /interactive chart/.test(c.text)), 'an error says nothing about a chart');

    const untouched = await withViews.client.callTool({ name: 'api_status', arguments: {} });
    assert.ok(!untouched.content.some((c) => c.type === 'text' && /interactive chart/.test(c.text)));
  } finally {
    await withViews.close();
    await without.close();
  }
});

test('the views are self-contained ui:// resources with no network and under 250 KB', async () => {
  const ui = await connectUiClient(true);
  try {
    for (const tool of ['derived_dealer_gex_history', 'shorts_short_screener', 'shorts_volume_and_ratio', 'shorts_volumes_by_exchange']) {
      const { uri, html, mimeType, meta } = await viewHtml(ui, tool);
      assert.match(uri, /^ui:\/\//);
      assert.equal(mimeType, 'text/html;profile=mcp-app');
      assert.ok(Buffer.byteLength(html) <= 250 * 1024, `${uri} is ${Buffer.byteLength(html)} bytes`);
      assert.doesNotMatch(
        html,
        /<script[^>]+src=|<link[^>]+href=|https?:\/\/(?!www\.w3\.org\/2000\/svg)/,
        `${uri} refers to something outside itself`,
      );
      assert.deepEqual((meta as { ui: { csp: { connectDomains: unknown[]; resourceDomains: unknown[] } } }).ui.csp.connectDomains, []);
      assert.deepEqual((meta as { ui: { csp: { connectDomains: unknown[]; resourceDomains: unknown[] } } }).ui.csp.resourceDomains, []);
    }
  } finally {
    await ui.close();
  }
});
