/** The client's rules for each kind of answer, against the simulator (and a broken server where the simulator cannot break). */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Writable } from 'node:stream';
import { MarketDataClient, type ProgressEvent } from '../../src/api/client.js';
import { validateRequest } from '../../src/catalog/index.js';
import { ConfigSchema, type Config } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import { errorResult, nextAction } from '../../src/mcp/answers/tool-errors.js';
import { dataset, rejection } from '../helpers/client.js';
import { withSimulator } from '../helpers/http.js';
import { eventually } from '../helpers/wait.js';
import { testCall } from '../helpers/call.js';

/** A client whose waits between retries are recorded and not slept. */
function recordingClient(baseUrl: string, overrides: Partial<Config> = {}) {
  const waits: number[] = [];
  const sink = new Writable({ write: (_c, _e, done) => done() });
  const config = ConfigSchema.parse({ apiKey: 'sim-live-key', baseUrl, logLevel: 'debug', ...overrides });
  const client = new MarketDataClient({
    config,
    log: createLogger('debug', sink),
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  });
  const call = (operationId: string, ticker?: string, query: Record<string, string | number> = {}, options = {}) => {
    const d = dataset(operationId);
    const checked = validateRequest(d, ticker, query);
    if (!checked.ok) throw new Error('invalid test request');
    return client.dataset(d, checked.ticker, checked.query, options);
  };
  return { client, waits, call };
}

test('one retry budget per call: 500, 500, 502, 502, 504, 504 and resets are sent 3 times, not 9', async () => {
  await withSimulator({}, async (sim) => {
    const { client, call } = recordingClient(sim.url);
    for (const code of [
      'INTERNAL_ERROR',
      'INTERNAL_ERROR',
      'UPSTREAM_ERROR',
      'UPSTREAM_ERROR',
      'UPSTREAM_TIMEOUT',
      'UPSTREAM_TIMEOUT',
    ] as const)
      sim.api.faults.inject({ kind: 'error', code });
    sim.api.faults.inject({ kind: 'reset' }, 2);
    const error = await rejection(call('market.oi_change'));
    assert.equal(sim.api.requests.length, 3, 'the first try and 2 retries');
    assert.equal(error.code, 'UPSTREAM_ERROR');
    await client.close();
  });
});

test('a 200 whose body breaks mid-stream is RESPONSE_INVALID and is not sent again: it was charged', async () => {
  let requests = 0;
  const server = createServer((_req, res) => {
    requests += 1;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '5000' });
    res.write('{"data":[{"ticker":"SPY","value":');
    setTimeout(() => res.destroy(), 20);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { client, call } = recordingClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    const error = await rejection(call('market.oi_change'));
    assert.equal(error.code, 'RESPONSE_INVALID');
    assert.equal(error.status, 200);
    assert.equal(requests, 1);
  } finally {
    await client.close();
    server.closeAllConnections();
    server.close();
  }
});

test('a 200 whose JSON is cut short is RESPONSE_INVALID, sent once and charged once', async () => {
  await withSimulator({}, async (sim) => {
    const { client, call } = recordingClient(sim.url);
    sim.api.faults.inject({ kind: 'malformed' });
    const error = await rejection(call('market.oi_change'));
    assert.equal(error.code, 'RESPONSE_INVALID');
    assert.equal(sim.api.requests.length, 1);
    assert.equal(sim.api.requests.filter((r) => r.charged).length, 1);
    await client.close();
  });
});

const unknownEnvelope = (status: number, code: string) => ({
  kind: 'raw' as const,
  status,
  contentType: 'application/json',
  body: JSON.stringify({
    error: {
      code,
      tags: ['billing'],
      message: 'Your plan no longer includes this dataset.\u202e',
      hint: 'Upgrade the plan on the account page.',
      docs_url: `https://api.example.com/docs/errors#${code}`,
      request_id: 'req_unknown1',
    },
  }),
});

test("a code this client does not know keeps the upstream's envelope (sanitized), and a 4xx with it is never retried", async () => {
  await withSimulator({}, async (sim) => {
    const { client, call } = recordingClient(sim.url);
    sim.api.faults.inject(unknownEnvelope(409, 'PLAN_DOWNGRADED'), 3);
    const error = await rejection(call('market.oi_change'));
    assert.equal(error.code, 'PLAN_DOWNGRADED');
    assert.equal(error.message, 'Your plan no longer includes this dataset.');
    assert.equal(error.hint, 'Upgrade the plan on the account page.');
    assert.equal(error.docsUrl, 'https://api.example.com/docs/errors#PLAN_DOWNGRADED');
    assert.equal(error.requestId, 'req_unknown1');
    assert.equal(sim.api.requests.length, 1, 'not retried');
    const result = errorResult(error);
    const shown = (result.structuredContent as { error: Record<string, unknown> }).error;
    assert.equal(shown['code'], 'PLAN_DOWNGRADED');
    assert.doesNotMatch(JSON.stringify(result), /no error envelope/);
    assert.notEqual(nextAction(error), 'retry_later');
    await client.close();
  });
});

test('a code this client does not know on a 5xx acts by its status: retried', async () => {
  await withSimulator({}, async (sim) => {
    const { client, call } = recordingClient(sim.url);
    sim.api.faults.inject(unknownEnvelope(502, 'EDGE_HICCUP'));
    const result = await call('market.oi_change');
    assert.ok(result.data);
    assert.deepEqual(
      sim.api.requests.map((r) => r.status),
      [502, 200],
    );
    await client.close();
  });
});

for (const status of [405, 410]) {
  test(`an unlisted status ${status} without an envelope is final, not retried as INTERNAL_ERROR`, async () => {
    await withSimulator({}, async (sim) => {
      const { client, call } = recordingClient(sim.url);
      sim.api.faults.inject({ kind: 'raw', status, contentType: 'text/html', body: '<html>nope</html>' }, 3);
      const error = await rejection(call('market.oi_change'));
      assert.notEqual(error.code, 'INTERNAL_ERROR');
      assert.equal(error.recoverable, false);
      assert.equal(sim.api.requests.length, 1);
      await client.close();
    });
  });
}

test('a 202 that says "retry after 0" is polled no faster than once a second', async () => {
  await withSimulator({}, async (sim) => {
    const { client, waits, call } = recordingClient(sim.url);
    sim.api.faults.inject(
      { kind: 'raw', status: 202, contentType: 'application/json', body: '{"status":"materializing","retry_after_seconds":0}' },
      4,
    );
    const result = await call('market.oi_change');
    assert.ok(result.data);
    assert.equal(waits.length, 4);
    assert.ok(
      waits.every((ms) => ms >= 1000),
      `waits ${waits.join(', ')}`,
    );
    await client.close();
  });
});

test("the server's Retry-After is honoured by the IN_FLIGHT_EXCEEDED and 5xx retries too", async () => {
  await withSimulator({}, async (sim) => {
    const { client, waits, call } = recordingClient(sim.url);
    sim.api.faults.inject({ kind: 'error', code: 'IN_FLIGHT_EXCEEDED', retryAfterSeconds: 3 });
    sim.api.faults.inject({ kind: 'error', code: 'INTERNAL_ERROR', retryAfterSeconds: 2 });
    await call('market.oi_change');
    assert.equal(waits.length, 2);
    assert.ok((waits[0] ?? 0) >= 3000, `in flight: ${waits[0]}`);
    assert.ok((waits[1] ?? 0) >= 2000, `5xx: ${waits[1]}`);
    await client.close();
  });
});

test('after QUOTA_EXHAUSTED the free endpoints still go out, and the budget shows the quota exhausted, 0 left and the reset instant', async () => {
  await withSimulator({}, async (sim) => {
    const { client, call } = recordingClient(sim.url);
    sim.api.setQuotaUsed('acct_live', 100_000);
    assert.equal((await rejection(call('market.oi_change'))).code, 'QUOTA_EXHAUSTED');
    assert.equal((await rejection(call('shorts.short_screener'))).code, 'QUOTA_EXHAUSTED');
    const sent = sim.api.requests.length;
    const discover = await client.meta('/v1/discover');
    const health = await client.meta('/v1/health');
    assert.ok(discover.data && health.data);
    assert.equal(sim.api.requests.length, sent + 2, 'discover and health reached the API');
    const budget = await client.budget();
    assert.equal(budget.quota_exhausted, true);
    assert.equal(budget.quota_remaining, 0);
    assert.equal(budget.quota_resets_at, new Date(sim.api.accountLimits('acct_live').quota.resetAtMs(Date.now())).toISOString());
    await client.close();
  });
});

test('a base URL whose host does not resolve answers check_configuration naming MARKET_DATA_BASE_URL, without retries', async () => {
  const { client, waits, call } = recordingClient('https://nonexistent.invalid');
  const error = await rejection(call('market.oi_change'));
  assert.equal(error.recoverable, false);
  assert.equal(nextAction(error), 'check_configuration');
  assert.match(error.hint ?? '', /MARKET_DATA_BASE_URL/);
  assert.match(JSON.stringify(errorResult(error).content), /MARKET_DATA_BASE_URL/);
  assert.deepEqual(waits, [], 'not retried');
  await client.close();
});

test('a refused connection on loopback (the simulator not started) stays a recoverable network error', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const { client, call } = recordingClient(`http://127.0.0.1:${port}`);
  const error = await rejection(call('market.oi_change'));
  assert.equal(error.code, 'NETWORK_ERROR');
  assert.equal(error.recoverable, true);
  await client.close();
});

test('shared requests: each waiter gets its own progress, a caller that cancels hears nothing after, and the other gets the data', async () => {
  await withSimulator({ materializationMs: 1500 }, async (sim) => {
    const real = new MarketDataClient({
      config: ConfigSchema.parse({ apiKey: 'sim-live-key', baseUrl: sim.url }),
      log: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })),
    });
    const d = dataset('stocks.dividends');
    const first: ProgressEvent[] = [];
    const second: ProgressEvent[] = [];
    const leaving = new AbortController();
    const a = real.dataset(d, 'KO', {}, { call: testCall({ signal: leaving.signal }), onProgress: (e) => first.push(e) });
    const b = real.dataset(d, 'KO', {}, { onProgress: (e) => second.push(e) });
    const aOutcome = a.then(
      () => 'data',
      (e: { code?: string }) => e.code,
    );
    await eventually(() => first.length >= 1 && second.length >= 1, 'both callers to hear the 202');
    leaving.abort();
    const heardBeforeLeaving = first.length;
    assert.equal(await aOutcome, 'CANCELLED');
    const result = await b;
    assert.ok(Array.isArray(result.data));
    assert.equal(first.length, heardBeforeLeaving, 'nothing after it left');
    assert.equal(new Set(sim.api.requests.map((r) => r.path)).size, 1, 'one shared series of requests');
    await real.close();
  });
});

test("shared requests: each caller's own deadline bounds its wait; the upstream request goes on for the others", async () => {
  await withSimulator({}, async (sim) => {
    sim.api.faults.latencyMs = 1200;
    const real = new MarketDataClient({
      config: ConfigSchema.parse({ apiKey: 'sim-live-key', baseUrl: sim.url }),
      log: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })),
    });
    const d = dataset('market.oi_change');
    // Real time: the deadline is an AbortSignal.timeout, which no fake clock reaches.
    const started = Date.now();
    const short = real.dataset(d, undefined, {}, { deadlineMs: 1000 }).then(
      () => 'data',
      (e: { code?: string }) => e.code,
    );
    const long = real.dataset(d, undefined, {});
    assert.equal(await short, 'DEADLINE_EXCEEDED');
    assert.ok(Date.now() - started < 1150, 'the short caller left at its own deadline');
    assert.ok((await long).data);
    assert.equal(sim.api.requests.length, 1);
    await real.close();
  });
});

test('shared requests: the upstream request is aborted when the last waiter leaves', async () => {
  await withSimulator({}, async (sim) => {
    sim.api.faults.latencyMs = 3000;
    const real = new MarketDataClient({
      config: ConfigSchema.parse({ apiKey: 'sim-live-key', baseUrl: sim.url }),
      log: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })),
    });
    const d = dataset('market.oi_change');
    const controllers = [new AbortController(), new AbortController()];
    const calls = controllers.map((c) => real.dataset(d, undefined, {}, { call: testCall({ signal: c.signal }) }).catch(() => 'left'));
    await eventually(async () => (await real.budget()).in_flight === 1, 'the shared request in flight');
    controllers[0]?.abort();
    assert.equal(await calls[0], 'left');
    assert.equal((await real.budget()).in_flight, 1, 'one caller still waits');
    controllers[1]?.abort();
    await Promise.all(calls);
    // Well before the 3 s latency would have freed it.
    await eventually(async () => (await real.budget()).in_flight === 0, 'the request to be aborted and its slot freed', 2000);
    await real.close();
  });
});
