import assert from 'node:assert/strict';
import { test } from 'node:test';
import { API_ERROR_CODES, type ApiErrorCode } from '../../src/catalog/index.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { envelopeOf, get, withSimulator, type SimResponse } from '../helpers/http.js';

/** One way to reach each code of the spec's error table, as a client would meet it. */
const RECIPES: Record<ApiErrorCode, (sim: RunningSimulator) => Promise<SimResponse>> = {
  AUTH_MISSING: (sim) => get(sim, '/v1/stocks/dividends/AAPL', null),
  AUTH_INVALID: (sim) => get(sim, '/v1/stocks/dividends/AAPL', 'sim-revoked-key'),
  AUTH_PAUSED: (sim) => get(sim, '/v1/stocks/dividends/AAPL', 'sim-lapsed-key'),
  SCOPE_INSUFFICIENT: (sim) => get(sim, '/v1/flow/tickers/SPY/overview', 'sim-live-key'),
  KEY_LIMIT_REACHED: async (sim) => {
    sim.api.faults.inject({ kind: 'error', code: 'KEY_LIMIT_REACHED' });
    return get(sim, '/v1/stocks/dividends/AAPL');
  },
  VALIDATION_ERROR: (sim) => get(sim, '/v1/flow/tickers/SPY/overview?window=30d', 'sim-admin-key'),
  TICKER_INVALID: (sim) => get(sim, '/v1/derived/dealer-gex/BRK.B/history'),
  CONTRACT_SYMBOL_INVALID: (sim) => get(sim, '/v1/options/chain-history/SPY?expiration=2026-12-18&right=C&contract=SPY-DEC-600C'),
  INDEX_UNSUPPORTED: (sim) => get(sim, '/v1/shorts/volume-and-ratio/SPX'),
  RANGE_TOO_DEEP: (sim) => get(sim, '/v1/shorts/volume-and-ratio/GME?from=2001-01-02'),
  // The directory's largest page fits the API's 256 KiB ceiling (3,000 rows): a smaller ceiling is set below.
  RESPONSE_TOO_LARGE: (sim) => get(sim, '/v1/stocks/ticker-exchanges?limit=3000'),
  NOT_FOUND: (sim) => get(sim, '/v1/stocks/dividends/ZZZZ'),
  READ_MODEL_UNAVAILABLE: async (sim) => {
    sim.api.faults.inject({ kind: 'error', code: 'READ_MODEL_UNAVAILABLE', retryAfterSeconds: 3 });
    return get(sim, '/v1/stocks/dividends/AAPL');
  },
  SERVICE_DISABLED: async (sim) => {
    sim.api.setCapability('dealer_heatmap', false);
    return get(sim, '/v1/derived/dealer-gex/SPY/history');
  },
  RATE_LIMITED: async (sim) => {
    await get(sim, '/v1/health');
    await get(sim, '/v1/health');
    return get(sim, '/v1/health');
  },
  QUOTA_EXHAUSTED: async (sim) => {
    sim.api.setQuotaUsed('acct_live', 100_000);
    return get(sim, '/v1/stocks/dividends/AAPL');
  },
  IN_FLIGHT_EXCEEDED: async (sim) => {
    sim.api.faults.latencyMs = 300;
    const all = await Promise.all(Array.from({ length: 3 }, () => get(sim, '/v1/stocks/dividends/AAPL')));
    return all.find((r) => r.status === 429) ?? (all[0] as SimResponse);
  },
  CIRCUIT_OPEN: async (sim) => {
    sim.api.faults.openCircuit(4);
    return get(sim, '/v1/stocks/dividends/AAPL');
  },
  UPSTREAM_ERROR: async (sim) => {
    sim.api.faults.inject({ kind: 'error', code: 'UPSTREAM_ERROR' });
    return get(sim, '/v1/stocks/dividends/AAPL');
  },
  UPSTREAM_TIMEOUT: async (sim) => {
    sim.api.faults.inject({ kind: 'error', code: 'UPSTREAM_TIMEOUT' });
    return get(sim, '/v1/stocks/dividends/AAPL');
  },
  INTERNAL_ERROR: async (sim) => {
    sim.api.faults.inject({ kind: 'error', code: 'INTERNAL_ERROR' });
    return get(sim, '/v1/stocks/dividends/AAPL');
  },
};

for (const [code, recipe] of Object.entries(RECIPES) as [ApiErrorCode, (typeof RECIPES)[ApiErrorCode]][]) {
  test(`${code} answers its status with the exact error envelope`, async () => {
    const limits = code === 'RATE_LIMITED' ? { perWindow: 2, windowMs: 60_000 } : code === 'IN_FLIGHT_EXCEEDED' ? { inFlight: 2 } : {};
    const ceiling = code === 'RESPONSE_TOO_LARGE' ? { responseCeilingBytes: 64 * 1024 } : {};
    await withSimulator({ limits, ...ceiling }, async (sim) => {
      const response = await recipe(sim);
      const spec = API_ERROR_CODES[code];
      assert.equal(response.status, spec.status, `status of ${code}`);
      const body = response.body as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ['error'], 'error is the only top-level key');
      const { error } = envelopeOf(response);
      assert.equal(error.code, code);
      assert.ok(Array.isArray(error.tags) && error.tags.length > 0 && error.tags.every((t) => typeof t === 'string'));
      assert.equal(typeof error.message, 'string');
      assert.ok(error.docs_url.endsWith(`#${code}`), error.docs_url);
      assert.doesNotThrow(() => new URL(error.docs_url));
      assert.equal(typeof error.request_id, 'string');
      if (spec.recoverable) {
        assert.equal(error.recoverable, true);
        assert.ok(Number.isInteger(error.retry_after_seconds) && (error.retry_after_seconds ?? 0) >= 1);
      } else {
        assert.equal('recoverable' in error, false, 'no recoverable flag on permanent errors');
        assert.equal('retry_after_seconds' in error, false);
      }
      if (response.status === 429)
        assert.equal(response.headers.get('retry-after'), String(error.retry_after_seconds), 'Retry-After equals retry_after_seconds');
    });
  });
}

test('a ticker is judged by its own endpoint pattern: BRK.B serves dividends but not dealer GEX', async () => {
  await withSimulator({}, async (sim) => {
    assert.equal((await get(sim, '/v1/stocks/dividends/BRK.B')).status, 200);
    const dealer = await get(sim, '/v1/derived/dealer-gex/BRK.B/history');
    assert.equal(envelopeOf(dealer).error.code, 'TICKER_INVALID');
  });
});

test('a lower-case ticker is TICKER_INVALID with a hint naming the fix', async () => {
  await withSimulator({}, async (sim) => {
    const response = await get(sim, '/v1/shorts/volume-and-ratio/gme');
    assert.equal(envelopeOf(response).error.code, 'TICKER_INVALID');
    assert.match(envelopeOf(response).error.hint ?? '', /"GME"/);
  });
});

test('VALIDATION_ERROR covers a bad date, an unknown parameter, a bad enum and a missing required parameter', async () => {
  await withSimulator({}, async (sim) => {
    for (const path of [
      '/v1/shorts/volume-and-ratio/GME?from=2026-02-30',
      '/v1/shorts/volume-and-ratio/GME?colour=red',
      '/v1/stocks/sector-tickers?sector=Crypto',
      '/v1/stocks/sector-tickers',
      '/v1/market/correlations?tickers=SPY,QQQ&lookback_days=5',
    ]) {
      const response = await get(sim, path);
      assert.equal(response.status, 400, path);
      assert.equal(envelopeOf(response).error.code, 'VALIDATION_ERROR', path);
      assert.ok(envelopeOf(response).error.hint, `hint for ${path}`);
    }
  });
});

test('a path outside the catalogue and a non-GET method answer NOT_FOUND', async () => {
  await withSimulator({}, async (sim) => {
    assert.equal(envelopeOf(await get(sim, '/v1/crypto/prices')).error.code, 'NOT_FOUND');
    const post = await fetch(`${sim.url}/v1/stocks/dividends/AAPL`, { method: 'POST', headers: { Authorization: 'Bearer sim-live-key' } });
    assert.equal(post.status, 404);
  });
});

test('format=summary avoids RESPONSE_TOO_LARGE', async () => {
  await withSimulator({ responseCeilingBytes: 64 * 1024 }, async (sim) => {
    assert.equal(envelopeOf(await get(sim, '/v1/stocks/ticker-exchanges?limit=3000')).error.code, 'RESPONSE_TOO_LARGE');
    const response = await get(sim, '/v1/stocks/ticker-exchanges?limit=3000&format=summary');
    assert.equal(response.status, 200);
    assert.equal((response.body as { data: { row_count: number } }).data.row_count, 3000);
  });
});

test('an administrator key reads the flow overview that other keys may not', async () => {
  await withSimulator({}, async (sim) => {
    assert.equal((await get(sim, '/v1/flow/tickers/SPY/overview?window=7d', 'sim-admin-key')).status, 200);
    assert.equal(envelopeOf(await get(sim, '/v1/flow/tickers/SPY/overview', 'sim-live-key')).error.code, 'SCOPE_INSUFFICIENT');
  });
});

test('the narrow key lacks a dataset scope and gets SCOPE_INSUFFICIENT there, data elsewhere', async () => {
  await withSimulator({}, async (sim) => {
    assert.equal(envelopeOf(await get(sim, '/v1/shorts/short-screener', 'sim-narrow-key')).error.code, 'SCOPE_INSUFFICIENT');
    assert.equal((await get(sim, '/v1/market/total-options-volume', 'sim-narrow-key')).status, 200);
  });
});

test('bodies that are not envelopes can be injected: an HTML 502 page', async () => {
  await withSimulator({}, async (sim) => {
    sim.api.faults.inject({ kind: 'raw', status: 502, body: '<html><body>Bad gateway</body></html>', contentType: 'text/html' });
    const response = await get(sim, '/v1/stocks/dividends/AAPL');
    assert.equal(response.status, 502);
    assert.match(response.text, /<html>/);
  });
});

test('a range that ends before the retention window is RANGE_TOO_DEEP, not a server error', async () => {
  // Found by the tool fuzz: to=0900-07-02 made the generator fail with INTERNAL_ERROR.
  await withSimulator({}, async (sim) => {
    const response = await get(sim, '/v1/market/total-options-volume?to=0900-07-02');
    assert.equal(response.status, 404);
    assert.equal((response.body as { error: { code: string } }).error.code, 'RANGE_TOO_DEEP');
  });
});
