/**
 * A tool over several names runs each part with its own call's context (issue 30's explicit
 * context, issue 32's tools): what the parts spend is the call's cost, so the audit line of
 * one ticker_briefing call counts the requests its five parts made, as its answer says.
 * Through the built binary over --http, where the audit line is written.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { freePort, serveHttp } from '../helpers/team-serve.js';
import { eventually } from '../helpers/wait.js';

interface AuditLine {
  audit?: string;
  tool?: string;
  units?: number;
  outcome?: string;
}

function auditLines(stderr: string, tool: string): AuditLine[] {
  return stderr
    .split('\n')
    .filter((line) => line.includes('"audit"'))
    .map((line) => JSON.parse(line) as AuditLine)
    .filter((line) => line.audit === 'tool_call' && line.tool === tool);
}

test("ticker_briefing's audit line counts the units its parts spent, as its meta.units does", async () => {
  const token = 'a-static-token-for-the-fan-out-context-test-01';
  const served = await serveHttp(await freePort(), { MARKET_DATA_HTTP_TOKEN: token }, ['--demo']);
  const client = new Client({ name: 'fan-out-context-test', version: '1' });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    const briefing = await client.callTool({ name: 'ticker_briefing', arguments: { ticker: 'GME' } });
    assert.notEqual(briefing.isError, true, JSON.stringify(briefing.content).slice(0, 400));
    const units = (briefing.structuredContent as { meta?: { units?: unknown } } | undefined)?.meta?.units;
    assert.ok(typeof units === 'number' && units >= 5, `five parts, each a request at least: meta.units ${String(units)}`);
    // The audit line is written as the answer goes out: it may reach stderr a moment after it.
    await eventually(() => auditLines(served.stderr(), 'ticker_briefing').length === 1, 'the call to have its audit line');
    const [line] = auditLines(served.stderr(), 'ticker_briefing');
    assert.equal(line?.outcome, 'ok');
    assert.equal(line.units, units, 'the parts spent them within this call');
  } finally {
    await client.close();
    await served.stop();
  }
});
