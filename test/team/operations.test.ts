import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ClientCredentialsProvider, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { DESK, SCOPE, startIdentityProvider, type IdentityProvider, type TestClient } from '../helpers/identity-provider.js';
import { freePort, serveHttp, type Served } from '../helpers/team-serve.js';

const API_KEY = 'team-account-key-0002';

interface AuditLine {
  audit?: string;
  subject: string;
  client_id: string;
  tool: string;
  args_sha256: string;
  account: string;
  units: number;
  outcome: string;
  latency_ms: number;
}

/** Prometheus text → value of `name{labels}` (labels in the order prom-client writes them). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('--http operations: audit line per call, /metrics counting the calls made, health and readiness', () => {
  let idp: IdentityProvider;
  let upstream: FakeUpstream;
  let server: Served;

  before(async () => {
    idp = await startIdentityProvider();
    upstream = await startFakeUpstream();
    const port = await freePort();
    server = await serveHttp(port, {
      MARKET_DATA_OAUTH_ISSUER: idp.issuer,
      MARKET_DATA_OAUTH_RESOURCE: `http://127.0.0.1:${port}/mcp`,
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: API_KEY,
      MARKET_DATA_ACCOUNT_ID: 'desk-account',
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

  test('every call leaves one audit line naming its user, and /metrics counts the same calls, outcomes and units', async () => {
    const base = new URL(server.url).origin;
    const made = new Map<string, number>();
    const calls: { member: TestClient; args: Record<string, unknown> }[] = [];
    for (const member of DESK) {
      // A repeat (answered from the cache), another query, and one refused before any request.
      calls.push(
        { member, args: { limit: 2 } },
        { member, args: { limit: 2 } },
        { member, args: { limit: 3 } },
        { member, args: { limit: 'many' } },
      );
    }
    const clients = new Map<string, Client>();
    for (const member of DESK) clients.set(member.id, await signIn(member));
    for (const { member, args } of calls) {
      const result = await clients.get(member.id)?.callTool({ name: 'shorts_short_screener', arguments: args });
      const key = result?.isError === true ? 'error' : 'ok';
      made.set(key, (made.get(key) ?? 0) + 1);
    }
    for (const client of clients.values()) await client.close();
    assert.ok((made.get('error') ?? 0) > 0 && (made.get('ok') ?? 0) > 0, 'both outcomes occurred');

    const audit = server
      .stderr()
      .split('\n')
      .filter((l) => l.includes('"audit":"tool_call"'))
      .map((l) => JSON.parse(l) as AuditLine);
    assert.equal(audit.length, calls.length, 'one audit line per call');
    for (const member of DESK) {
      const lines = audit.filter((a) => a.subject === member.id);
      assert.equal(lines.length, calls.filter((c) => c.member === member).length, `${member.id}'s calls are all attributed to them`);
      assert.ok(lines.every((a) => a.client_id === member.id && a.tool === 'shorts_short_screener'));
    }
    assert.equal(new Set(audit.map((a) => a.account)).size, 1, 'one account pays for every call');
    assert.equal(new Set(audit.map((a) => a.args_sha256)).size, 3, 'the same arguments hash alike, different ones differ');
    const stderr = server.stderr();
    assert.ok(!stderr.includes(API_KEY), 'the key is never logged');
    assert.ok(!/eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+/.test(stderr), 'no token is logged');
    assert.ok(!stderr.includes('desk-account'), 'the account is named by a hash');

    const metrics = await (await fetch(`${base}/metrics`)).text();
    const ok = sample(metrics, 'mdmcp_tool_calls_total{tool="shorts_short_screener",outcome="ok"}');
    assert.equal(ok, made.get('ok'), 'calls counted by outcome: ok');
    const failed = audit.filter((a) => a.outcome !== 'ok');
    for (const outcome of new Set(failed.map((a) => a.outcome)))
      assert.equal(
        sample(metrics, `mdmcp_tool_calls_total{tool="shorts_short_screener",outcome="${outcome}"}`),
        failed.filter((a) => a.outcome === outcome).length,
        `calls counted by outcome: ${outcome}`,
      );
    assert.equal(failed.length, made.get('error'));
    const charged = upstream.dataRequests().length;
    assert.ok(charged > 0 && charged < (made.get('ok') ?? 0), 'repeats were answered from the cache, the rest upstream');
    assert.equal(sample(metrics, 'mdmcp_units_spent_total'), charged, 'units spent: one per upstream data answer with 200');
    assert.equal(
      audit.reduce((sum, a) => sum + a.units, 0),
      charged,
      "the audit lines' units add up to the same",
    );
    const documents = upstream.requests.filter((r) => r.path.startsWith('/v1/openapi.json')).length;
    assert.equal(
      sample(metrics, 'mdmcp_upstream_responses_total{status="200"}'),
      charged + documents,
      'upstream answers: the charged ones and the free document',
    );
    assert.equal(sample(metrics, 'mdmcp_cache_hits_total{tool="shorts_short_screener"}'), (made.get('ok') ?? 0) - charged);
    assert.equal(sample(metrics, 'mdmcp_tool_call_duration_seconds_count{tool="shorts_short_screener"}'), calls.length);
  });

  test('/healthz answers for the process and /readyz with the upstream reachable, both without a token', async () => {
    const base = new URL(server.url).origin;
    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200);
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200);
    const body = (await ready.json()) as { checks: Record<string, { ok: boolean }> };
    assert.equal(body.checks['upstream']?.ok, true);
    assert.ok(
      upstream.requests.some((r) => r.path === '/v1/health' && r.authorization === undefined),
      'readiness probed the upstream without the key',
    );
  });
});
