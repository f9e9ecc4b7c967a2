/**
 * Hosts without MCP Apps lose nothing: the same text and structuredContent; only a host
 * that declares the io.modelcontextprotocol/ui extension is told a view shows the result.
 * Runs on the built server in --demo, chromium or not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectUiClient, viewHtml } from './harness.js';

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
    assert.deepEqual(rendered.structuredContent, plain.structuredContent);
    assert.deepEqual(rendered.content[0], plain.content[0], 'the text block is unchanged');
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
