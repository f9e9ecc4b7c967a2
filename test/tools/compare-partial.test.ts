/**
 * volatility_compare under a deadline and a rate limit: one deadline for the whole call
 * (sector lookup and fan-out together), the tickers answered kept beside the ones that
 * failed (each with its code and retry guidance), and an error only when nothing was
 * answered, one that names what happened to every ticker.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf } from '../helpers/mcp.js';
import { startSimProxy } from '../helpers/sim-proxy.js';

type Row = Record<string, unknown>;
interface Failed {
  ticker: string;
  measure?: string;
  error: { code: string; retry_after_seconds: number | null; action: string; recoverable: boolean };
}
const isMeasure = (path: string): boolean => /skew|anomaly/.test(path);
const rateLimited = {
  status: 429,
  headers: { 'retry-after': '60' },
  body: { error: { code: 'RATE_LIMITED', message: 'Too many requests.', recoverable: true, retry_after_seconds: 60 } },
};

test('volatility_compare: the sector lookup and the fan-out share one deadline', async () => {
  await withSimulator({}, async (sim) => {
    // Each step alone fits the 2.5 s deadline; both together do not.
    const proxy = await startSimProxy(sim.url, (path) => (/sector/.test(path) || isMeasure(path) ? { delayMs: 1500 } : {}));
    const { client, close } = await connectV2({ baseUrl: proxy.url, key: 'sim-live-key', env: { MARKET_DATA_DEADLINE_MS: '2500' } });
    try {
      // Were the deadline each step's own, both would fit it and the call would be answered.
      const result = await client.callTool({ name: 'volatility_compare', arguments: { sector: 'Energy', measure: 'skew' } });
      const error = errorOf(result);
      // The deadline passed in flight, or the gate saw the request would not fit the time left.
      assert.ok(['DEADLINE_EXCEEDED', 'RATE_LIMITED'].includes(error.code), JSON.stringify(result).slice(0, 400));
      assert.match(error.message, /None of the \d+ tickers was answered/);
    } finally {
      await close();
      await proxy.close();
    }
  });
});

test('volatility_compare: a rate-limited ticker goes into failed with its retry guidance, beside the rows answered', async () => {
  await withSimulator({}, async (sim) => {
    const proxy = await startSimProxy(sim.url, (path) =>
      isMeasure(path) && path.includes('NVDA') ? { delayMs: 800, answer: rateLimited } : {},
    );
    const { client, close } = await connectV2({ baseUrl: proxy.url, key: 'sim-live-key', env: { MARKET_DATA_DEADLINE_MS: '10000' } });
    try {
      const result = await client.callTool({ name: 'volatility_compare', arguments: { tickers: 'AAPL,MSFT,NVDA' } });
      assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 400));
      const answer = result.structuredContent as { data: Row[]; failed?: Failed[] };
      assert.deepEqual(answer.data.map((r) => r['ticker']).sort(), ['AAPL', 'MSFT']);
      const nvda = answer.failed?.find((f) => f.ticker === 'NVDA');
      assert.ok(nvda, JSON.stringify(answer.failed));
      assert.equal(nvda.error.code, 'RATE_LIMITED');
      assert.equal(nvda.error.recoverable, true);
      assert.equal(typeof nvda.error.retry_after_seconds, 'number');
      assert.equal(nvda.error.action, 'retry_after_wait');
    } finally {
      await close();
      await proxy.close();
    }
  });
});

test('volatility_compare: nothing answered is one error naming every ticker, not one request\'s "nothing was sent"', async () => {
  await withSimulator({}, async (sim) => {
    const proxy = await startSimProxy(sim.url, (path) => (isMeasure(path) ? { delayMs: 200, answer: rateLimited } : {}));
    const { client, close } = await connectV2({ baseUrl: proxy.url, key: 'sim-live-key', env: { MARKET_DATA_DEADLINE_MS: '10000' } });
    try {
      const tickers = ['AAPL', 'MSFT', 'NVDA', 'AMD'];
      const error = errorOf(await client.callTool({ name: 'volatility_compare', arguments: { tickers: tickers.join(',') } }));
      const reached = proxy.seen.filter((s) => isMeasure(s.path)).length;
      assert.ok(reached > 0, 'some requests reached the upstream');
      assert.equal(error.code, 'RATE_LIMITED');
      for (const ticker of tickers) assert.match(error.message, new RegExp(`${ticker} [A-Z_]+`), error.message);
      assert.doesNotMatch(error.message, /nothing was sent/);
      assert.equal(error.recoverable, true);
      assert.ok((error.retry_after_seconds ?? 0) > 0);
    } finally {
      await close();
      await proxy.close();
    }
  });
});
