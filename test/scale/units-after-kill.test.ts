/**
 * A node's spent units outlive it: the account's units of the day are kept on Redis by
 * every node, and /metrics on any node shows them, a killed node's included. The built
 * binary, a real redis-server.
 */
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { eventually } from '../helpers/wait.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';
import { freePort, serveHttp } from '../helpers/team-serve.js';

const TOKEN = 'units-static-token-0123456789';

function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : undefined;
}

redisTest(
  "the units a killed node spent are still counted in the account's day, on the other nodes' /metrics",
  { timeout: 60_000 },
  async () => {
    const redis = await ThrowawayRedis.start();
    const upstream = await startFakeUpstream();
    const env = {
      MARKET_DATA_HTTP_TOKEN: TOKEN,
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: 'team-account-key-0004',
      MARKET_DATA_REDIS_URL: redis.url,
    };
    const doomed = await serveHttp(await freePort(), env);
    const survivor = await serveHttp(await freePort(), env);
    const client = new Client({ name: 'units-test', version: '1' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(doomed.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
      );
      for (let limit = 1; limit <= 3; limit += 1)
        assert.notEqual((await client.callTool({ name: 'shorts_short_screener', arguments: { limit } })).isError, true);
      await client.close();
      const metricsOf = async (url: string): Promise<string> => (await fetch(new URL('/metrics', url))).text();
      await eventually(async () => sample(await metricsOf(doomed.url), 'mdmcp_account_units_spent_today') === 3, 'the three units counted');
      const exited = new Promise((resolve) => doomed.child.once('exit', resolve));
      doomed.child.kill('SIGKILL');
      await exited;
      assert.equal(
        sample(await metricsOf(survivor.url), 'mdmcp_account_units_spent_today'),
        3,
        "the killed node's units, on the other node",
      );
    } finally {
      await survivor.stop();
      await upstream.close();
      await redis.kill();
    }
  },
);
