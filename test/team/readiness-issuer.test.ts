import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider.js';
import { freePort, serveHttp, type Served } from '../helpers/team-serve.js';

interface Readiness {
  status: number;
  checks: Record<string, { ok: boolean; detail: string }>;
}

async function readiness(served: Served): Promise<Readiness> {
  const response = await fetch(new URL('/readyz', served.url));
  const body = (await response.json()) as { checks?: Readiness['checks'] };
  return { status: response.status, checks: body.checks ?? {} };
}

describe('/readyz and the OAuth issuer', () => {
  let live: IdentityProvider;
  let gone: IdentityProvider;
  let upstream: FakeUpstream;
  const servers: Served[] = [];

  async function start(issuer: string): Promise<Served> {
    const port = await freePort();
    const served = await serveHttp(port, {
      MARKET_DATA_OAUTH_ISSUER: issuer,
      MARKET_DATA_OAUTH_RESOURCE: `http://127.0.0.1:${port}/mcp`,
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: 'team-account-key-0001',
    });
    servers.push(served);
    return served;
  }

  before(async () => {
    upstream = await startFakeUpstream();
    live = await startIdentityProvider();
    // An issuer that was there and is not any more: its port refuses connections.
    gone = await startIdentityProvider();
    await gone.close();
  });
  after(async () => {
    for (const served of servers) await served.stop();
    await Promise.all([live.close(), upstream.close()]);
  });

  test('a node whose issuer answers with its keys is ready', async () => {
    const { status, checks } = await readiness(await start(live.issuer));
    assert.equal(checks['issuer']?.ok, true, JSON.stringify(checks));
    assert.equal(status, 200);
  });

  test('a node that cannot fetch its issuer’s keys is not ready, and says which check failed', async () => {
    const { status, checks } = await readiness(await start(gone.issuer));
    assert.equal(status, 503);
    assert.equal(checks['issuer']?.ok, false);
    assert.match(checks['issuer']?.detail ?? '', /issuer's keys could not be read/);
    assert.equal(checks['upstream']?.ok, true, 'the upstream is fine: the issuer alone holds the node back');
  });
});
