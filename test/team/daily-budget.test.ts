import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PermitOutcome, PermitRequest } from '../../src/api/gate/account-gate.js';
import { ApiError } from '../../src/api/errors.js';
import { RedisLink } from '../../src/redis/connection.js';
import { InProcessAccountGate } from '../../src/api/gate/in-process-gate.js';
import { BudgetGate, InProcessLedger, type BudgetLedger } from '../../src/team/daily-budget.js';
import { RedisBudgetLedger } from '../../src/redis/budget-ledger.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startFakeUpstream } from '../helpers/fake-upstream.js';
import { testCall } from '../helpers/call.js';
import { errorOf } from '../helpers/mcp.js';
import { eventually } from '../helpers/wait.js';
import { redisTest, ThrowawayRedis } from '../helpers/redis-server.js';
import { freePort, serveHttp } from '../helpers/team-serve.js';

const UNITS = 3;
// 22:00 UTC: the budget resets two hours later.
const EVENING = Date.UTC(2026, 10, 24, 22, 0, 0);
const MIDNIGHT = '2026-11-25T00:00:00.000Z';

function request(subject: string, free = false): PermitRequest {
  // Each request is a call of its own, of `subject`.
  const call = testCall({ caller: { subject, clientId: `${subject}-agent` } });
  return { free, deadline: Number.MAX_SAFE_INTEGER, signal: call.signal, call };
}

/** One request sent by `subject` through `gate`, answered with `outcome`: undefined when sent, the refusal otherwise. */
async function send(
  gate: BudgetGate,
  subject: string,
  outcome: PermitOutcome = { status: 200 },
  free = false,
): Promise<ApiError | undefined> {
  try {
    const permit = await gate.acquire(request(subject, free));
    permit.release(outcome);
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

function budgetGate(ledger: BudgetLedger, now: () => number): BudgetGate {
  return new BudgetGate(new InProcessAccountGate({ clock: { now, after: () => ({ cancel: () => undefined }) } }), {
    units: UNITS,
    ledger: () => ledger,
    now,
  });
}

describe('a per-user daily budget in units', () => {
  test('a subject who spent the day’s units is refused with the reset named; others, free requests and unanswered ones are not counted', async () => {
    let now = EVENING;
    const gate = budgetGate(new InProcessLedger(), () => now);
    // Answers that cost nothing (an upstream error, a request that failed) give their unit back.
    assert.equal(await send(gate, 'alice', { status: 503 }), undefined);
    assert.equal(await send(gate, 'alice', {}), undefined);
    for (let i = 0; i < UNITS; i += 1)
      assert.equal(await send(gate, 'alice'), undefined, `charged answer ${i + 1} of ${UNITS} goes through`);

    const refused = await send(gate, 'alice');
    assert.ok(refused, 'the next charged request is refused before it is sent');
    assert.equal(refused.code, 'USER_BUDGET_EXHAUSTED');
    assert.equal(refused.local, true, 'no request was sent');
    assert.ok(refused.message.includes(MIDNIGHT), `the refusal names when the budget resets: ${refused.message}`);
    assert.equal(refused.retryAfterSeconds, 2 * 60 * 60);
    assert.equal(refused.recoverable, true);

    assert.equal(await send(gate, 'alice', { status: 200 }, true), undefined, 'free requests (discover) still go through');
    assert.equal(await send(gate, 'bob'), undefined, "another member's budget is untouched");

    now = Date.parse(MIDNIGHT) + 1;
    assert.equal(await send(gate, 'alice'), undefined, 'a new day, a new budget');
  });

  redisTest('on Redis, two nodes count one budget per subject', {}, async () => {
    const redis = await ThrowawayRedis.start();
    const links = [new RedisLink({ url: redis.url }), new RedisLink({ url: redis.url })];
    try {
      for (const link of links) assert.ok(await link.waitUntilReady(5000));
      const [first, second] = links.map((link) => budgetGate(new RedisBudgetLedger(link), () => EVENING));
      assert.ok(first && second);
      assert.equal(await send(first, 'alice'), undefined);
      assert.equal(await send(second, 'alice', { status: 429 }), undefined, 'an uncharged answer on the other node gives its unit back');
      assert.equal(await send(second, 'alice'), undefined);
      assert.equal(await send(first, 'alice'), undefined);
      assert.equal((await send(second, 'alice'))?.code, 'USER_BUDGET_EXHAUSTED', 'the units spent on either node count against one budget');
      assert.equal(await send(first, 'bob'), undefined);
    } finally {
      for (const link of links) await link.close();
      await redis.kill();
    }
  });
});

describe('the daily budget on the built --http server', () => {
  test('a member over budget is refused before any request, while cached answers stay free', async () => {
    const token = 'a-static-token-for-the-budget-test-0123456789';
    const upstream = await startFakeUpstream();
    const served = await serveHttp(await freePort(), {
      MARKET_DATA_HTTP_TOKEN: token,
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: 'team-account-key-0001',
      MARKET_DATA_USER_DAILY_UNITS: '1',
    });
    const client = new Client({ name: 'budget-test', version: '1' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      const data = (): number => upstream.dataRequests().filter((r) => !r.path.startsWith('/v1/discover')).length;
      const first = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      assert.notEqual(first.isError, true, JSON.stringify(first.content));
      const spent = data();
      assert.ok(spent > 0, 'the first call went upstream');

      const refused = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 3 } });
      assert.equal(refused.isError, true);
      const error = errorOf(refused);
      assert.equal(error.code, 'USER_BUDGET_EXHAUSTED');
      assert.match(JSON.stringify(refused.content), /resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z/);
      assert.equal(data(), spent, 'the refused call reached no upstream');

      const cached = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 2 } });
      assert.notEqual(cached.isError, true, 'a cached answer is free, and not refused');
    } finally {
      await client.close();
      await served.stop();
      await upstream.close();
    }
  });
});

describe('the daily budget across a Redis restart, on the built --http server', () => {
  redisTest('a member who spent the day’s units is still refused after Redis restarts empty', { timeout: 60_000 }, async () => {
    const token = 'a-static-token-for-the-budget-test-0123456789';
    const redis = await ThrowawayRedis.start();
    const upstream = await startFakeUpstream();
    const served = await serveHttp(await freePort(), {
      MARKET_DATA_HTTP_TOKEN: token,
      MARKET_DATA_BASE_URL: upstream.url,
      MARKET_DATA_API_KEY: 'team-account-key-0001',
      MARKET_DATA_REDIS_URL: redis.url,
      MARKET_DATA_USER_DAILY_UNITS: String(UNITS),
    });
    const client = new Client({ name: 'budget-test', version: '1' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
      );
      // A limit of its own per call: no answer comes from the cache.
      let limit = 1;
      const call = (): ReturnType<Client['callTool']> => client.callTool({ name: 'shorts_short_screener', arguments: { limit: limit++ } });
      // The budget's count is on Redis before the restart: the node has joined it.
      await eventually(async () => (await fetch(new URL('/readyz', served.url))).status === 200, 'the node on Redis', 20_000);
      for (let i = 0; i < UNITS; i += 1) assert.notEqual((await call()).isError, true, `charged call ${i + 1}`);
      await redis.kill();
      await redis.restart();
      await eventually(
        async () => (await fetch(new URL('/readyz', served.url))).status === 200,
        'the node back on the restarted Redis',
        20_000,
      );
      const before = upstream.dataRequests().length;
      const refused = await call();
      assert.equal(errorOf(refused).code, 'USER_BUDGET_EXHAUSTED', JSON.stringify(refused.content));
      assert.equal(upstream.dataRequests().length, before, 'nothing reached the upstream');
    } finally {
      await client.close();
      await served.stop();
      await upstream.close();
      await redis.kill();
    }
  });
});
