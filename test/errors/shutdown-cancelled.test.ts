/**
 * A call the server stops at shutdown is safe to make again: its CANCELLED says so in
 * `recoverable`, in `action` and in the text alike, so an agent following any of them
 * calls again rather than giving up.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { withSimulator } from '../helpers/http.js';
import { startHttp } from '../helpers/http-server.js';
import { errorInText } from '../helpers/mcp.js';
import { eventually } from '../helpers/wait.js';

const TOKEN = 'trader-http-token-0123456789';

test('shutdown CANCELLED: recoverable, and its action and text both say to call again', async () => {
  await withSimulator({}, async (sim) => {
    const server = await startHttp({ MARKET_DATA_HTTP_TOKEN: TOKEN, MARKET_DATA_BASE_URL: sim.url, MARKET_DATA_API_KEY: 'sim-live-key' });
    const { child, url } = server;
    try {
      const client = new Client({ name: 'shutdown-cancelled', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
      );
      // Far longer than the shutdown's grace: the server must stop the call and say so.
      sim.api.faults.latencyMs = 60_000;
      const call = client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      await eventually(() => sim.api.inFlight('acct_live').now === 1, 'the call in flight upstream');
      child.kill('SIGTERM');
      const result = await call;
      assert.equal(result.isError, true);
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
      const error = errorInText(text) as unknown as { code: string; recoverable: boolean; action: string };
      assert.equal(error.code, 'CANCELLED');
      assert.equal(error.recoverable, true);
      assert.notEqual(error.action, 'do_not_retry');
      assert.doesNotMatch(text, /do not retry/i);
      assert.match(text, /call again/i);
      await client.close().catch(() => undefined);
    } finally {
      sim.api.faults.latencyMs = 0;
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
