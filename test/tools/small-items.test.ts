/**
 * Smaller things an agent trips on: a scope the key lacks is not asked again and names
 * what to use instead; an over-long ticker list says it is too long; the prompts can be
 * followed as written.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';

test('SCOPE_INSUFFICIENT names tools the key can use, and is not sent upstream again', async () => {
  await withSimulator({}, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-narrow-key' });
    try {
      const sent = (): number => sim.api.requests.filter((r) => r.path.startsWith('/v1/darkpool')).length;
      const first = errorOf(await client.callTool({ name: 'darkpool_by_ticker', arguments: { ticker: 'AAPL' } }));
      assert.equal(first.code, 'SCOPE_INSUFFICIENT');
      assert.match(first.hint ?? '', /try stocks_lit_trades_recent/);
      assert.doesNotMatch(first.hint ?? '', /shorts_volume_and_ratio/, 'an alternative the key also lacks is not offered');
      assert.equal(sent(), 1);
      const again = errorOf(await client.callTool({ name: 'darkpool_by_ticker', arguments: { ticker: 'MSFT' } }));
      assert.equal(again.code, 'SCOPE_INSUFFICIENT');
      assert.match(again.hint ?? '', /stocks_lit_trades_recent/);
      assert.equal(sent(), 1, 'the second call was answered without a request');
    } finally {
      await close();
    }
  });
});

test('eleven well-formed tickers are refused as too many, not as an invalid ticker', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const eleven = 'AAPL,MSFT,NVDA,TSLA,AMD,META,AMZN,GOOGL,NFLX,ORCL,CRM';
    const refused = errorOf(await client.callTool({ name: 'shorts_short_screener', arguments: { tickers: eleven } }));
    assert.equal(refused.code, 'VALIDATION_ERROR');
    assert.match(refused.message, /11 tickers: at most 10/);
    const bad = errorOf(await client.callTool({ name: 'shorts_short_screener', arguments: { tickers: 'AAPL,msft' } }));
    assert.equal(bad.code, 'TICKER_INVALID', 'a misspelt ticker is still one');
  } finally {
    await close();
  }
});

test('prompts: the squeeze screen can find three names; the dealer briefing skips the dealer tool for BRK.B', async () => {
  const { client, close } = await connectV2({ args: ['--demo'] });
  try {
    const screen = await client.getPrompt({ name: 'short_squeeze_screen', arguments: {} });
    const text = screen.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
    const threshold = Number(/min_short_float_pct=(\d+(?:\.\d+)?)/.exec(text)?.[1]);
    const result = await client.callTool({
      name: 'shorts_short_screener',
      arguments: { min_short_float_pct: threshold, limit: 10, fields: ['ticker'] },
    });
    const names = (result.structuredContent as { data: unknown[] }).data;
    assert.ok(names.length >= 3, `the default threshold ${threshold} leaves ${names.length} names for a top three`);

    const brk = await client.getPrompt({ name: 'dealer_positioning_briefing', arguments: { ticker: 'BRK.B' } });
    const brief = brk.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n');
    assert.doesNotMatch(brief, /Call derived_dealer_gex_history with ticker=BRK\.B/);
    assert.match(brief, /1 to 5 letters only/);
    const spy = await client.getPrompt({ name: 'dealer_positioning_briefing', arguments: { ticker: 'SPY' } });
    assert.match(
      spy.messages.map((m) => (m.content.type === 'text' ? m.content.text : '')).join('\n'),
      /derived_dealer_gex_history with ticker=SPY/,
    );
  } finally {
    await close();
  }
});
