/**
 * One tool list for every node: a dataset one node finds in the upstream's document is
 * listed by every node of the deployment within seconds, and an SDK client connected to
 * another node (2025-11-25 over HTTP, as the SDK's client negotiates by default) hears
 * tools/list_changed on its GET event stream, and 2026-07-28 clients on every node hear it
 * on their subscriptions/listen streams. The built binary, a real redis-server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { ETF_FLOWS } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';
import { findRedisServer, ThrowawayRedis } from '../helpers/redis-server.js';
import { freePort, serveHttp, type Served } from '../helpers/team-serve.js';

const TOKEN = 'team-static-token-0123456789';
const NEW_TOOL = 'etf_flows_by_ticker';

/** A client of the SDK's default (2025-11-25 over HTTP), or with `modern` a 2026-07-28 one listening for changes. */
async function connect(url: string, modern = false): Promise<{ client: Client; changes: () => number }> {
  const client = new Client(
    { name: 'desk-agent', version: '1.0.0' },
    { capabilities: {}, ...(modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) },
  );
  let changes = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => void (changes += 1));
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  if (modern) await client.listen({ toolsListChanged: true });
  return { client, changes: () => changes };
}

const listed = async (client: Client): Promise<boolean> => (await client.listTools()).tools.some((t) => t.name === NEW_TOOL);

describe('the tool list across nodes on one Redis', { skip: findRedisServer() ? false : 'redis-server not installed' }, () => {
  let redis: ThrowawayRedis;
  let sim: RunningSimulator;
  const nodes: Served[] = [];

  const node = async (refreshS: number): Promise<Served> => {
    const served = await serveHttp(await freePort(), {
      MARKET_DATA_BASE_URL: sim.url,
      MARKET_DATA_API_KEY: 'sim-live-key',
      MARKET_DATA_REDIS_URL: redis.url,
      MARKET_DATA_HTTP_TOKEN: TOKEN,
      MARKET_DATA_CATALOG_REFRESH_S: String(refreshS),
    });
    nodes.push(served);
    return served;
  };

  before(async () => {
    redis = await ThrowawayRedis.start();
    sim = await startSimulator({ materializationMs: 0 });
  });
  after(async () => {
    for (const served of nodes) await served.stop();
    await sim.close();
    await redis.kill();
  });

  test(
    'a dataset one node finds upstream is listed by the others within seconds, and their clients hear tools/list_changed, 2025 and 2026 alike',
    { timeout: 60_000 },
    async () => {
      // The first node reads the document every second; the second would not for an hour.
      const watcher = await node(1);
      const other = await node(3600);
      const { client, changes } = await connect(other.url);
      const listeners = [await connect(watcher.url, true), await connect(other.url, true)];
      assert.equal(await listed(client), false, 'not listed before the upstream has it');
      sim.api.registerDataset(ETF_FLOWS);
      await eventually(() => watcher.stderr().includes('etf.flows_by_ticker'), 'the first node read the new document', 20_000);
      await eventually(() => changes() >= 1, "tools/list_changed on the second node's event stream", 20_000);
      assert.equal(await listed(client), true, 'the second node lists the new tool');
      for (const [i, listener] of listeners.entries()) {
        await eventually(() => listener.changes() >= 1, `tools/list_changed on the listen stream of node ${i + 1}`, 20_000);
        assert.equal(await listed(listener.client), true, `node ${i + 1} lists the new tool to a 2026-07-28 client`);
        await listener.client.close();
      }
      await client.close();
    },
  );
});
