/**
 * --hide-inaccessible with a per-user key map, through the built binary over --http: each
 * signed-in member's tools/list follows what that member's own key may read (its discover),
 * not the team key's view. The upstream is the simulator, whose keys carry different scopes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { CLI } from '../helpers/mcp.js';
import { DESK, SCOPE, startIdentityProvider, type IdentityProvider, type TestClient } from '../helpers/identity-provider.js';
import { freePort, serveHttp, type Served } from '../helpers/team-serve.js';

const SECRET = 'a-test-secret-of-at-least-32-characters!';
/** The simulator's keys: every scope, and only market, stocks and macro. */
const WIDE_KEY = 'sim-live-key';
const NARROW_KEY = 'sim-narrow-key';

let idp: IdentityProvider;
let sim: RunningSimulator;
let served: Served;
const [alice, bob] = DESK;

async function signIn(member: TestClient): Promise<Client> {
  const client = new Client({ name: member.id, version: '1.0.0' });
  const authProvider = new ClientCredentialsProvider({
    clientId: member.id,
    clientSecret: member.secret,
    scope: SCOPE,
    expectedIssuer: idp.issuer,
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { authProvider }));
  return client;
}

const toolNames = async (client: Client): Promise<Set<string>> => new Set((await client.listTools()).tools.map((t) => t.name));

before(async () => {
  assert.ok(alice && bob);
  idp = await startIdentityProvider();
  sim = await startSimulator({ port: 0, host: '127.0.0.1' });
  const file = join(mkdtempSync(join(tmpdir(), 'key-map-')), 'keys.sealed');
  const env = { PATH: process.env['PATH'] ?? '', MARKET_DATA_KEY_MAP_FILE: file, MARKET_DATA_KEY_MAP_SECRET: SECRET };
  for (const [subject, key] of [
    [alice.id, NARROW_KEY],
    [bob.id, WIDE_KEY],
  ] as const)
    assert.equal(spawnSync(process.execPath, [CLI, 'keys', 'set', subject], { input: key, env, encoding: 'utf8' }).status, 0);
  const port = await freePort();
  served = await serveHttp(
    port,
    {
      MARKET_DATA_OAUTH_ISSUER: idp.issuer,
      MARKET_DATA_OAUTH_RESOURCE: `http://127.0.0.1:${port}/mcp`,
      MARKET_DATA_BASE_URL: sim.url,
      // The team key reads everything: a list from its view would hide nothing.
      MARKET_DATA_API_KEY: WIDE_KEY,
      MARKET_DATA_KEY_MAP_FILE: file,
      MARKET_DATA_KEY_MAP_SECRET: SECRET,
    },
    ['--hide-inaccessible'],
  );
});

after(async () => {
  await served.stop();
  await Promise.all([idp.close(), sim.close()]);
});

test("each member's tools/list shows what that member's own key may read, not the team key's view", async () => {
  assert.ok(alice && bob);
  const [aliceClient, bobClient] = [await signIn(alice), await signIn(bob)];
  const [aliceTools, bobTools] = [await toolNames(aliceClient), await toolNames(bobClient)];
  const hiddenForAlice = [...bobTools].filter((name) => !aliceTools.has(name));
  assert.ok(hiddenForAlice.length > 0, "the narrow key's list hides the tools outside its scopes");
  assert.deepEqual(
    [...aliceTools].filter((name) => !bobTools.has(name)),
    [],
    'and shows nothing the wide key does not',
  );
  // What alice no longer sees is what her key would be refused: her key's discover says so.
  const discover = (await (await fetch(`${sim.url}/v1/discover`, { headers: { authorization: `Bearer ${NARROW_KEY}` } })).json()) as {
    access_scope: string[];
  };
  assert.ok(!discover.access_scope.includes('read:options'), 'the narrow key lacks options');
  assert.ok(
    hiddenForAlice.some((name) => name.startsWith('options_')),
    `options tools hidden for alice: ${hiddenForAlice.join(', ')}`,
  );
  assert.ok(bobTools.has(hiddenForAlice[0] ?? ''), 'bob, whose key reads every scope, still sees them');
  // Asking again costs nothing upstream: each key's discover is asked once.
  const discovers = sim.api.requests.filter((r) => r.path === '/v1/discover').length;
  await toolNames(await signIn(alice));
  assert.equal(sim.api.requests.filter((r) => r.path === '/v1/discover').length, discovers, 'cached per key');
  await Promise.all([aliceClient.close(), bobClient.close()]);
});
