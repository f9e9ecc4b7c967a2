/**
 * The audit trail and the metrics' labels, on the built --http server at log level warn:
 * every request that reaches the MCP layer leaves a line (a tool that does not exist
 * included), every refusal at the door too, and an upstream's own error code does not
 * become a label of its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { eventually } from '../helpers/wait.js';
import { freePort, serveHttp, type Served } from '../helpers/team-serve.js';

const TOKEN = 'audit-static-token-0123456789';

interface Line {
  audit?: string;
  method?: string;
  tool?: string;
  status?: number;
  subject?: string;
  outcome?: string;
}

function auditLines(served: Served): Line[] {
  return served
    .stderr()
    .split('\n')
    .filter((l) => l.includes('"audit":'))
    .map((l) => JSON.parse(l) as Line);
}

describe('the audit trail at MARKET_DATA_LOG_LEVEL=warn', () => {
  let upstream: FakeUpstream;
  let served: Served;
  let client: Client;

  before(async () => {
    upstream = await startFakeUpstream();
    served = await serveHttp(await freePort(), {
      MARKET_DATA_HTTP_TOKEN: TOKEN,
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: 'team-account-key-0003',
      MARKET_DATA_LOG_LEVEL: 'warn',
    });
    client = new Client({ name: 'audit-test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
  });
  after(async () => {
    await client.close();
    await served.stop();
    await upstream.close();
  });

  test('a tool call leaves its audit line, and so does the request that carried it', async () => {
    const result = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
    assert.notEqual(result.isError, true);
    await eventually(
      () => auditLines(served).some((l) => l.audit === 'tool_call' && l.tool === 'shorts_short_screener'),
      'the tool_call line',
    );
    await eventually(
      () =>
        auditLines(served).some(
          (l) => l.audit === 'mcp_request' && l.method === 'tools/call' && l.tool === 'shorts_short_screener' && l.status === 200,
        ),
      'the request line',
    );
  });

  test('a call to a tool that does not exist leaves a line naming it', async () => {
    await client.callTool({ name: 'no_such_tool', arguments: {} }).catch(() => undefined);
    await eventually(
      () =>
        auditLines(served).some(
          (l) => l.audit === 'mcp_request' && l.method === 'tools/call' && l.tool === 'no_such_tool' && l.subject === 'static-token',
        ),
      'the line for the unknown tool',
    );
  });

  test('a request refused at the door (401) leaves a line, without the token it sent', async () => {
    const refused = await fetch(served.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer wrong-token-9876543210',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(refused.status, 401);
    await eventually(() => auditLines(served).some((l) => l.audit === 'refused' && l.status === 401), 'the refusal line');
    assert.ok(!served.stderr().includes('wrong-token-9876543210'), 'the token is not written');
  });

  test("an upstream's own error code is counted as other_error and its status by class, not as labels of their own", async () => {
    upstream.answer = () => ({
      status: 418,
      body: {
        error: {
          code: 'TEAPOT_CODE_9',
          tags: [],
          message: 'Short and stout.',
          docs_url: 'https://api.example/errors#TEAPOT_CODE_9',
          request_id: null,
        },
      },
    });
    const result = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 7 } });
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /TEAPOT_CODE_9/, 'the agent still gets the upstream code');
    const metrics = await (await fetch(new URL('/metrics', served.url))).text();
    assert.match(metrics, /mdmcp_tool_calls_total\{tool="shorts_short_screener",outcome="other_error"\} 1/);
    assert.match(metrics, /mdmcp_upstream_responses_total\{status="4xx"\} 1/);
    assert.doesNotMatch(metrics, /TEAPOT_CODE_9|status="418"/);
  });
});
