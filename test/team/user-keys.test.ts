import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { CLI, errorOf } from '../helpers/mcp.js';
import { DESK, SCOPE, startIdentityProvider, type IdentityProvider, type TestClient } from '../helpers/identity-provider.js';
import { RedisLink } from '../../src/redis/connection.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';
import { freePort, serveHttp, type Served } from '../helpers/team-serve.js';

const TEAM_KEY = 'team-account-key-0001';
const ALICE_KEY = 'alice-own-key-7f3a91c2';
const BOB_KEY = 'bob-own-key-c4e8d0b5';
const SECRET = 'a-test-secret-of-at-least-32-characters!';
const TOOL = 'shorts_short_screener';

function keys(file: string, args: string[], input = ''): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, 'keys', ...args], {
    input,
    env: { PATH: process.env['PATH'] ?? '', MARKET_DATA_KEY_MAP_FILE: file, MARKET_DATA_KEY_MAP_SECRET: SECRET },
    encoding: 'utf8',
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function signIn(served: Served, idp: IdentityProvider, member: TestClient): Promise<Client> {
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

/** The keys the upstream saw on data requests since `from`. */
function keysSeen(upstream: FakeUpstream, from: number): string[] {
  return upstream
    .dataRequests()
    .slice(from)
    .filter((r) => r.path.startsWith('/v1/') && !r.path.startsWith('/v1/discover'))
    .map((r) => r.authorization ?? '');
}

describe('whose key pays: a sealed per-user key map', () => {
  let idp: IdentityProvider;
  let upstream: FakeUpstream;
  let file: string;
  const servers: Served[] = [];
  const [alice, bob, carol] = DESK;

  async function start(unmapped: 'refuse' | 'team'): Promise<Served> {
    const port = await freePort();
    const served = await serveHttp(port, {
      MARKET_DATA_OAUTH_ISSUER: idp.issuer,
      MARKET_DATA_OAUTH_RESOURCE: `http://127.0.0.1:${port}/mcp`,
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: TEAM_KEY,
      MARKET_DATA_KEY_MAP_FILE: file,
      MARKET_DATA_KEY_MAP_SECRET: SECRET,
      MARKET_DATA_KEY_MAP_UNMAPPED: unmapped,
    });
    servers.push(served);
    return served;
  }

  before(async () => {
    idp = await startIdentityProvider();
    upstream = await startFakeUpstream();
    file = join(mkdtempSync(join(tmpdir(), 'key-map-')), 'keys.sealed');
    assert.ok(alice && bob && carol);
    assert.equal(keys(file, ['set', alice.id, '--account', 'desk-a'], `${ALICE_KEY}\n`).status, 0);
    assert.equal(keys(file, ['set', bob.id], BOB_KEY).status, 0);
  });
  after(async () => {
    for (const served of servers) await served.stop();
    await Promise.all([idp.close(), upstream.close()]);
  });

  test('the file holds neither a key nor a subject in clear, and `keys list` names subjects without keys', () => {
    const sealed = readFileSync(file, 'utf8');
    for (const secret of [ALICE_KEY, BOB_KEY, 'alice-agent', 'desk-a']) assert.ok(!sealed.includes(secret), `${secret} is not in the file`);
    const listed = keys(file, ['list']);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /alice-agent\taccount=desk-a/);
    assert.match(listed.stdout, /bob-agent\taccount=\(by key\)/);
    assert.ok(!listed.stdout.includes(ALICE_KEY) && !listed.stdout.includes(BOB_KEY), 'no key is printed');
    const wrongSecret = spawnSync(process.execPath, [CLI, 'keys', 'list'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        MARKET_DATA_KEY_MAP_FILE: file,
        MARKET_DATA_KEY_MAP_SECRET: SECRET.replace('a-test', 'b-test'),
      },
      encoding: 'utf8',
    });
    assert.notEqual(wrongSecret.status, 0);
    assert.match(wrongSecret.stderr, /does not open with this secret/);
  });

  test("each subject's calls reach the upstream with its own key, and one subject's cached answer is not served to another", async () => {
    assert.ok(alice && bob && carol);
    const served = await start('refuse');
    const aliceClient = await signIn(served, idp, alice);
    const bobClient = await signIn(served, idp, bob);

    let from = upstream.dataRequests().length;
    const first = await aliceClient.callTool({ name: TOOL, arguments: { limit: 2 } });
    assert.notEqual(first.isError, true, JSON.stringify(first.content));
    assert.deepEqual(keysSeen(upstream, from), [`Bearer ${ALICE_KEY}`], "alice's call carried alice's key");

    from = upstream.dataRequests().length;
    const same = await bobClient.callTool({ name: TOOL, arguments: { limit: 2 } });
    assert.notEqual(same.isError, true, JSON.stringify(same.content));
    assert.deepEqual(
      keysSeen(upstream, from),
      [`Bearer ${BOB_KEY}`],
      "bob's identical call was not answered from alice's cache: it went up with bob's key",
    );

    from = upstream.dataRequests().length;
    const again = await aliceClient.callTool({ name: TOOL, arguments: { limit: 2 } });
    assert.notEqual(again.isError, true);
    assert.deepEqual(keysSeen(upstream, from), [], "alice's repeat came from alice's own cache");

    // Carol signs in fine but holds no key on this server: refused before any request, and told why.
    const carolClient = await signIn(served, idp, carol);
    from = upstream.dataRequests().length;
    const refused = await carolClient.callTool({ name: TOOL, arguments: { limit: 2 } });
    assert.equal(refused.isError, true);
    const error = errorOf(refused);
    assert.equal(error.code, 'CONFIG_INVALID');
    assert.match(
      JSON.stringify(refused.content),
      /No API key is assigned to your sign-in \(subject \\?"carol-agent\\?"\).*keys set carol-agent/,
    );
    assert.deepEqual(keysSeen(upstream, from), [], "carol's call reached no upstream");
    // The guidance sends her to api_status, which says the same, not to set the server's MARKET_DATA_API_KEY.
    const status = JSON.stringify((await carolClient.callTool({ name: 'api_status', arguments: {} })).content);
    assert.match(status, /No key for you: no API key is assigned to your sign-in/);
    assert.doesNotMatch(status, /MARKET_DATA_API_KEY/);

    for (const client of [aliceClient, bobClient, carolClient]) await client.close();
    for (const key of [ALICE_KEY, BOB_KEY, TEAM_KEY]) assert.ok(!served.stderr().includes(key), 'no key in the log');
    const audit = served
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"audit":"tool_call"') && line.includes(`"tool":"${TOOL}"`));
    const accountOf = (subject: string): Set<string> =>
      new Set(audit.filter((l) => l.includes(`"subject":"${subject}"`)).map((l) => /"account":"(\w+)"/.exec(l)?.[1] ?? ''));
    assert.equal(accountOf(alice.id).size, 1, "alice's calls name one account");
    assert.notDeepEqual([...accountOf(alice.id)], [...accountOf(bob.id)], 'the audit names the account that paid, not the team account');
  });

  test('with MARKET_DATA_KEY_MAP_UNMAPPED=team a subject the map does not name spends the team key', async () => {
    assert.ok(carol);
    const served = await start('team');
    const carolClient = await signIn(served, idp, carol);
    const from = upstream.dataRequests().length;
    const result = await carolClient.callTool({ name: TOOL, arguments: { limit: 3 } });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    assert.deepEqual(keysSeen(upstream, from), [`Bearer ${TEAM_KEY}`]);
    await carolClient.close();
  });

  test('a node whose key map does not open does not start, and says why', async () => {
    const port = await freePort();
    await assert.rejects(
      serveHttp(port, {
        MARKET_DATA_BASE_URL: upstream.url,
        MARKET_DATA_API_KEY: TEAM_KEY,
        MARKET_DATA_KEY_MAP_FILE: file,
        MARKET_DATA_KEY_MAP_SECRET: 'another-secret-also-at-least-32-characters',
      }),
      /MARKET_DATA_KEY_MAP_FILE: the key map does not open with this secret/,
    );
  });
});

describe('per-user keys on Redis, across two nodes', () => {
  redisTest("one member's answer cached on Redis is served to that member on another node, never to another member", {}, async () => {
    const redis = await ThrowawayRedis.start();
    const idp = await startIdentityProvider();
    const upstream = await startFakeUpstream();
    const file = join(mkdtempSync(join(tmpdir(), 'key-map-')), 'keys.sealed');
    const [alice, bob] = DESK;
    assert.ok(alice && bob);
    keys(file, ['set', alice.id], ALICE_KEY);
    keys(file, ['set', bob.id], BOB_KEY);
    const nodes: Served[] = [];
    const clients: Client[] = [];
    try {
      for (let i = 0; i < 2; i += 1) {
        const port = await freePort();
        nodes.push(
          await serveHttp(port, {
            MARKET_DATA_OAUTH_ISSUER: idp.issuer,
            MARKET_DATA_OAUTH_RESOURCE: `http://127.0.0.1:${port}/mcp`,
            MARKET_DATA_BASE_URL: upstream.url,
            MARKET_DATA_API_KEY: TEAM_KEY,
            MARKET_DATA_REDIS_URL: redis.url,
            MARKET_DATA_KEY_MAP_FILE: file,
            MARKET_DATA_KEY_MAP_SECRET: SECRET,
          }),
        );
      }
      const [first, second] = nodes;
      assert.ok(first && second);
      const call = async (node: Served, member: TestClient): Promise<string[]> => {
        const client = await signIn(node, idp, member);
        clients.push(client);
        const from = upstream.dataRequests().length;
        const result = await client.callTool({ name: TOOL, arguments: { limit: 4 } });
        assert.notEqual(result.isError, true, JSON.stringify(result.content));
        return keysSeen(upstream, from);
      };
      assert.deepEqual(await call(first, alice), [`Bearer ${ALICE_KEY}`]);
      assert.deepEqual(
        await call(second, bob),
        [`Bearer ${BOB_KEY}`],
        "bob's call on the other node is not served alice's answer from Redis",
      );
      assert.deepEqual(await call(second, alice), [], "alice's answer, cached on Redis by the first node, serves her on the second");

      const link = new RedisLink({ url: redis.url });
      try {
        assert.ok(await link.waitUntilReady(5000));
        const names = (await link.sendCommand(['KEYS', '*'])) as string[];
        assert.ok(names.length > 0, 'the nodes keep state on Redis');
        for (const name of names)
          for (const secret of [ALICE_KEY, BOB_KEY, alice.id, bob.id]) assert.ok(!name.includes(secret), `${name} names no key or subject`);
      } finally {
        await link.close();
      }
    } finally {
      for (const client of clients) await client.close();
      for (const node of nodes) await node.stop();
      await Promise.all([idp.close(), upstream.close()]);
      await redis.kill();
    }
  });
});
