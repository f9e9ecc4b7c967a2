import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATASETS, META_ENDPOINTS } from '../../src/catalog/index.js';
import { KeyLimitReachedError } from '../../src/simulator/accounts.js';
import { envelopeOf, get, withSimulator } from '../helpers/http.js';
import { ETF_FLOWS } from '../helpers/fixtures.js';

interface Doc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<
    string,
    { get: { operationId: string; parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[] } }
  >;
}

test('/v1/openapi.json is OpenAPI 3.1.0 with every dataset, its dotted operation id and parameter schemas', async () => {
  await withSimulator({}, async (sim) => {
    const doc = (await get(sim, '/v1/openapi.json')).body as Doc;
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '0.4.0-operation-ids');
    assert.match(doc.info.title, /API/);
    assert.equal(Object.keys(doc.paths).length, DATASETS.length + META_ENDPOINTS.length);
    assert.equal(DATASETS.length, 22);
    for (const dataset of DATASETS) {
      const op = doc.paths[dataset.path]?.get;
      assert.ok(op, dataset.path);
      assert.equal(op.operationId, dataset.operationId);
      assert.match(op.operationId, /^[a-z]+\.[a-z0-9_]+$/);
    }
    const dealer = doc.paths['/v1/derived/dealer-gex/{ticker}/history']?.get.parameters.find((p) => p.name === 'ticker');
    assert.deepEqual(dealer, {
      name: 'ticker',
      in: 'path',
      required: true,
      description: dealer?.['description' as keyof typeof dealer],
      schema: { type: 'string', pattern: '^[A-Z]{1,5}$' },
    });
    const overview = doc.paths['/v1/flow/tickers/{ticker}/overview']?.get.parameters ?? [];
    assert.deepEqual(overview.find((p) => p.name === 'window')?.schema, { type: 'string', enum: ['1d', '7d'] });
    assert.equal(overview.find((p) => p.name === 'session_date')?.schema['format'], 'date');
    const sector = doc.paths['/v1/stocks/sector-tickers']?.get.parameters.find((p) => p.name === 'sector');
    assert.equal(sector?.required, true);
    assert.equal((sector?.schema['enum'] as string[]).length, 11);
  });
});

test('a dataset registered in the simulator appears in openapi, discover and the routes', async () => {
  await withSimulator({ extraDatasets: [ETF_FLOWS] }, async (sim) => {
    const doc = (await get(sim, '/v1/openapi.json')).body as Doc;
    assert.equal(doc.paths[ETF_FLOWS.path]?.get.operationId, 'etf.flows_by_ticker');
    const discover = (await get(sim, '/v1/discover')).body as { datasets: { operation_id: string }[] };
    assert.ok(discover.datasets.some((d) => d.operation_id === 'etf.flows_by_ticker'));
    assert.equal((await get(sim, '/v1/etf/flows-by-ticker/SPY?days=5')).status, 200);
    assert.equal(envelopeOf(await get(sim, '/v1/etf/flows-by-ticker/SPY?days=500')).error.code, 'VALIDATION_ERROR');
  });
});

test('discover lists the key access_scope, datasets with coverage, and monthly_remaining', async () => {
  await withSimulator({}, async (sim) => {
    const body = (await get(sim, '/v1/discover', 'sim-narrow-key')).body as {
      access_scope: string[];
      datasets: { operation_id: string; accessible: boolean; coverage: unknown }[];
      quota: { monthly_remaining: number };
    };
    assert.ok(body.access_scope.length > 0);
    assert.equal(body.datasets.length, 22);
    assert.ok(
      body.datasets.some((d) => !d.accessible),
      'the narrow key cannot read every dataset',
    );
    assert.equal(body.quota.monthly_remaining, 100_000);
  });
});

test('a sixth active key is refused with KEY_LIMIT_REACHED; revoking one makes room', async () => {
  await withSimulator({}, async (sim) => {
    // acct_live holds sim-live-key and sim-narrow-key active (sim-revoked-key is revoked).
    const created = [sim.api.book.createKey('acct_live'), sim.api.book.createKey('acct_live'), sim.api.book.createKey('acct_live')];
    assert.throws(
      () => sim.api.book.createKey('acct_live'),
      (error: unknown) => error instanceof KeyLimitReachedError && error.status === 409,
    );
    assert.equal((await get(sim, '/v1/market/oi-change', created[0] ?? '')).status, 200, 'a created key works');
    sim.api.book.revokeKey(created[0] ?? '');
    assert.equal(envelopeOf(await get(sim, '/v1/market/oi-change', created[0] ?? '')).error.code, 'AUTH_INVALID');
    assert.doesNotThrow(() => sim.api.book.createKey('acct_live'));
  });
});

test('a lapsed subscription pauses every key; restoring it makes the same key work again', async () => {
  await withSimulator({}, async (sim) => {
    assert.equal(envelopeOf(await get(sim, '/v1/market/oi-change', 'sim-lapsed-key')).error.code, 'AUTH_PAUSED');
    sim.api.book.setSubscription('acct_lapsed', 'active');
    assert.equal((await get(sim, '/v1/market/oi-change', 'sim-lapsed-key')).status, 200);
    sim.api.book.setSubscription('acct_live', 'lapsed');
    assert.equal(envelopeOf(await get(sim, '/v1/market/oi-change', 'sim-live-key')).error.code, 'AUTH_PAUSED');
  });
});

test('every dataset answers 200 with simulated data for a valid request', async () => {
  const samples: Record<string, string> = {
    'options.chain_history': '?expiration=2026-12-18&right=P',
    'stocks.sector_tickers': '?sector=Energy',
    'market.correlations': '?tickers=SPY,QQQ,IWM',
    'macro.forex_rate': '?pair=EURUSD',
  };
  await withSimulator({}, async (sim) => {
    for (const dataset of DATASETS) {
      const path = dataset.path.replace('{ticker}', 'AAPL') + (samples[dataset.operationId] ?? '');
      const response = await get(sim, path, 'sim-admin-key');
      assert.equal(response.status, 200, `${dataset.operationId}: ${response.text.slice(0, 200)}`);
      assert.equal((response.body as { _meta: { data_source: string } })._meta.data_source, 'simulator');
    }
  });
});
