/**
 * The daily budget decides a whole tool call at its first charged request: a call that reads
 * several upstream pages and was admitted returns its rows even when its pages take the
 * member over the day's units, and a refused call says truthfully what it spent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { errorOf } from '../helpers/mcp.js';
import { freePort, serveHttp } from '../helpers/team-serve.js';
import { lastFullSession } from '../helpers/sessions.js';
import { eventually } from '../helpers/wait.js';

const UNITS = 3;

interface AuditLine {
  audit?: string;
  tool?: string;
  units?: number;
  upstream_requests?: number;
  outcome?: string;
}

function auditLines(stderr: string, tool: string): AuditLine[] {
  const lines: AuditLine[] = [];
  for (const line of stderr.split('\n')) {
    if (!line.includes('"audit"')) continue;
    const parsed = JSON.parse(line) as AuditLine;
    if (parsed.audit === 'tool_call' && parsed.tool === tool) lines.push(parsed);
  }
  return lines;
}

test('a dark-pool window read over more pages than the budget has left returns its rows, then the next call is refused having spent nothing', async () => {
  const token = 'a-static-token-for-the-budget-pages-test-0123';
  // The vendor dialect pages 50 prints behind a cursor: 200 prints of a long window take four pages.
  const served = await serveHttp(
    await freePort(),
    { MARKET_DATA_HTTP_TOKEN: token, MARKET_DATA_SIM_DIALECT: 'vendor', MARKET_DATA_USER_DAILY_UNITS: String(UNITS) },
    ['--demo'],
  );
  const client = new Client({ name: 'budget-pages-test', version: '1' });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    const window = await client.callTool({
      name: 'darkpool_by_ticker',
      arguments: { ticker: 'AAPL', session_date: lastFullSession(), from_time: '13:00', to_time: '16:00', limit: 200 },
    });
    assert.notEqual(window.isError, true, `an admitted call finishes its pages: ${JSON.stringify(window.content).slice(0, 400)}`);
    const rows = (window.structuredContent as { data?: unknown[] } | undefined)?.data;
    assert.ok(Array.isArray(rows) && rows.length > 0, 'the rows paid for are returned');
    const [read] = auditLines(served.stderr(), 'darkpool_by_ticker');
    assert.ok(read?.units !== undefined, 'the call has an audit line');
    assert.ok(read.units > UNITS, `the window took more pages (${read.units} units) than the budget held, so this test proves the rule`);

    const refused = await client.callTool({ name: 'darkpool_by_ticker', arguments: { ticker: 'MSFT' } });
    const error = errorOf(refused);
    assert.equal(error.code, 'USER_BUDGET_EXHAUSTED');
    // The audit line is written as the answer goes out: it may reach stderr a moment after it.
    await eventually(() => auditLines(served.stderr(), 'darkpool_by_ticker').length >= 2, 'the refused call to have its audit line');
    const [, second] = auditLines(served.stderr(), 'darkpool_by_ticker');
    assert.equal(second?.units, 0, 'the refused call spent nothing');
    assert.equal(second.upstream_requests, 0, 'the refused call sent no data request');
    assert.match(JSON.stringify(refused.content), /spent no units/, 'the refusal says what the call spent');
  } finally {
    await client.close();
    await served.stop();
  }
});
