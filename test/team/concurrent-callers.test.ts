/**
 * Two members of a desk calling one --http server at once: each call's caller and cost
 * travel with the call itself (src/api/call-context.ts), from the request's sign-in to the
 * account gate and the audit line, however the calls interleave.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ClientCredentialsProvider, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { DESK, SCOPE, startIdentityProvider, type IdentityProvider, type TestClient } from '../helpers/identity-provider.js';
import { eventually } from '../helpers/wait.js';
import { freePort, serveHttp, type Served } from '../helpers/team-serve.js';

const TOOL = 'shorts_short_screener';
/** Alice's burst: twice the account's 5 in flight, so that half of it queues. */
const BURST = 10;
const BOB_LIMIT = 50;

interface AuditLine {
  audit?: string;
  subject: string;
  client_id: string;
  tool: string;
  units: number;
  upstream_requests: number;
}

let idp: IdentityProvider;
let upstream: FakeUpstream;
let server: Served;

before(async () => {
  idp = await startIdentityProvider();
  upstream = await startFakeUpstream();
  // A slow upstream: the account's in-flight slots stay full while the rest of the burst waits.
  upstream.answer = () => ({ body: { data: [{ ticker: 'AAA', short_float_pct: 1 }], _meta: { request_id: 'req-slow' } }, delayMs: 3000 });
  const port = await freePort();
  server = await serveHttp(port, {
    MARKET_DATA_OAUTH_ISSUER: idp.issuer,
    MARKET_DATA_OAUTH_RESOURCE: `http://127.0.0.1:${port}/mcp`,
    MARKET_DATA_BASE_URL: upstream.url,
    MARKET_DATA_API_KEY: 'team-account-key-0003',
  });
});

after(async () => {
  await server.stop();
  await Promise.all([idp.close(), upstream.close()]);
});

async function signIn(member: TestClient): Promise<Client> {
  const client = new Client({ name: member.id, version: '1.0.0' });
  const authProvider = new ClientCredentialsProvider({
    clientId: member.id,
    clientSecret: member.secret,
    scope: SCOPE,
    expectedIssuer: idp.issuer,
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider }));
  return client;
}

function auditLines(): AuditLine[] {
  return server
    .stderr()
    .split('\n')
    .filter((line) => line.includes('"audit":"tool_call"'))
    .map((line) => JSON.parse(line) as AuditLine)
    .filter((line) => line.tool === TOOL);
}

test('two members calling at once: each audit line names its own caller and cost, and the single call is served beside the burst', async () => {
  const [alice, bob] = [DESK[0], DESK[1]];
  assert.ok(alice && bob);
  const [aliceClient, bobClient] = [await signIn(alice), await signIn(bob)];
  try {
    // Alice's calls differ in their limit, so none is shared with another or answered from the cache.
    const queued = new Set<number>();
    const burst = Array.from({ length: BURST }, (_, i) =>
      aliceClient.callTool({ name: TOOL, arguments: { limit: i + 1 } }, { onprogress: () => queued.add(i), timeout: 120_000 }),
    );
    // Every call of the burst is at the server: five in flight upstream, the rest told they are queued.
    await eventually(
      () => upstream.dataRequests().length >= 5 && queued.size >= BURST - 5,
      'the burst to fill the slots and queue',
      60_000,
    );
    const bobCall = bobClient.callTool({ name: TOOL, arguments: { limit: BOB_LIMIT } }, { timeout: 120_000 });
    const results = await Promise.all([...burst, bobCall]);
    for (const result of results) assert.notEqual(result.isError, true, JSON.stringify(result.content));

    // Fair shares read the caller from each call: Bob's one call takes a turn beside Alice's
    // queued ones. Read as one caller (or in arrival order) it would go out after all of them.
    const sent = upstream.dataRequests().map((r) => r.path);
    const bobAt = sent.findIndex((path) => path.includes(`limit=${BOB_LIMIT}`));
    assert.ok(bobAt >= 0, "Bob's call reached the upstream");
    const aliceAfterBob = sent.length - bobAt - 1;
    assert.ok(aliceAfterBob >= 3, `Bob's call was sent after all but ${aliceAfterBob} of Alice's queued calls: ${sent.join(' ')}`);

    // The audit line is written as each answer goes out: it may reach stderr a moment after it.
    await eventually(() => auditLines().length === BURST + 1, 'an audit line for every call');
    const lines = auditLines();
    const aliceLines = lines.filter((line) => line.subject === alice.id);
    const bobLines = lines.filter((line) => line.subject === bob.id);
    assert.equal(aliceLines.length, BURST, "Alice's calls are all hers");
    assert.equal(bobLines.length, 1, "Bob's call is his");
    assert.ok(aliceLines.every((line) => line.client_id === alice.id) && bobLines.every((line) => line.client_id === bob.id));
    // Each call sent one request, answered 200: one unit each, in its own record, none counted twice or lost.
    for (const line of lines) assert.deepEqual([line.units, line.upstream_requests], [1, 1], JSON.stringify(line));
  } finally {
    await Promise.all([aliceClient.close(), bobClient.close()]);
  }
});
