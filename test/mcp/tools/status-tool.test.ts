/** api_status says why a tool cannot be used, in words that send the agent the right way. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unusableTools } from '../../../src/mcp/tools/status-tool.js';

test('a dataset the key has the scope for but cannot call is named as administrator-only, not as out of scope', () => {
  const discovered = {
    access_scope: ['read:flow', 'read:shorts'],
    datasets: [
      { operation_id: 'flow.ticker_overview', scope: 'read:flow', accessible: false, status: 'ready' },
      { operation_id: 'macro.forex_rate', scope: 'read:macro', accessible: false, status: 'ready' },
      { operation_id: 'shorts.short_screener', scope: 'read:shorts', accessible: true, status: 'ready' },
    ],
  };
  const reasons = Object.fromEntries(unusableTools(discovered).map((u) => [u.tool, u.reason]));
  assert.match(reasons['flow_ticker_overview'] ?? '', /administrator/);
  assert.doesNotMatch(reasons['flow_ticker_overview'] ?? '', /out of this key's scope/);
  assert.match(reasons['macro_forex_rate'] ?? '', /out of this key's scope \(read:macro\)/);
  assert.equal(reasons['shorts_short_screener'], undefined);
});
