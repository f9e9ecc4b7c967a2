/**
 * Several names in one call (issue 32), through the built server against the simulator in
 * each dialect it speaks: dealer gamma of several tickers or a sector, the most shorted names
 * of a sector, one name's squeeze briefing. Each agrees with the per-dataset tools, spends
 * exactly the requests it says (meta.units against what the upstream saw), sends nothing the
 * live document does not list (no 400 upstream), and reports a name or part that fails
 * beside the others' data.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { DEALER_TICKER_PATTERN } from '../../src/catalog/index.js';
import { fieldName } from '../../src/simulator/dialect-body.js';
import { withSimulator } from '../helpers/http.js';
import { connectV2, errorOf, textOf } from '../helpers/mcp.js';
import { startSimProxy } from '../helpers/sim-proxy.js';

type Row = Record<string, unknown>;
interface Answer {
  data: Row[] | Row;
  failed?: { ticker?: string; part?: string; tickers?: string; error: { code: string; action: string; message: string } }[];
  meta: Row;
}

async function answerOf(client: Client, name: string, args: Row): Promise<Answer> {
  const result = await client.callTool({ name, arguments: args });
  assert.notEqual(result.isError, true, `${name}: ${textOf(result).slice(0, 400)}`);
  return result.structuredContent as Answer;
}

/** Charged requests the upstream answered while `run` ran, and none it refused as a bad request. */
async function spent(sim: RunningSimulator, run: () => Promise<Answer>): Promise<{ answer: Answer; charged: number }> {
  const before = sim.api.requests.length;
  const answer = await run();
  const seen = sim.api.requests.slice(before);
  assert.deepEqual(
    seen.filter((r) => r.status === 400).map((r) => `${r.path}?${r.query} ${r.code ?? ''}`),
    [],
    'nothing the live document does not list was sent',
  );
  return { answer, charged: seen.filter((r) => r.charged).length };
}

async function withServer(run: (client: Client, sim: RunningSimulator) => Promise<void>): Promise<void> {
  await withSimulator({ materializationMs: 0, limits: { perWindow: 1000, perIpPerWindow: 1000 } }, async (sim) => {
    const { client, close } = await connectV2({ baseUrl: sim.url, key: 'sim-live-key' });
    try {
      await run(client, sim);
    } finally {
      await close();
    }
  });
}

test('dealer gamma of five tickers in one call: negative gamma first, as the dealer tool says it, BRK.B failed beside them', async () => {
  await withServer(async (client, sim) => {
    const { answer, charged } = await spent(sim, () =>
      answerOf(client, 'derived_dealer_gex_compare', { tickers: 'SPY,QQQ,IWM,AAPL,BRK.B' }),
    );
    const rows = answer.data as Row[];
    assert.deepEqual(rows.map((r) => r['ticker']).sort(), ['AAPL', 'IWM', 'QQQ', 'SPY']);
    assert.equal(answer.meta['units'], charged, 'meta.units are the requests made');
    assert.equal(charged, 4, 'the newest snapshot of each: one request a ticker');
    const pcts = rows.map((r) => Number(r['spot_vs_flip_pct']));
    assert.deepEqual(
      pcts,
      [...pcts].sort((a, b) => a - b),
      'most negative gamma first',
    );
    for (const row of rows) {
      const below = Number(row['spot_usd']) < Number(row['gamma_flip_usd']);
      assert.equal(row['regime'], below ? 'negative_gamma' : 'positive_gamma', String(row['ticker']));
    }
    const brk = answer.failed?.find((f) => f.ticker === 'BRK.B');
    assert.ok(brk, JSON.stringify(answer.failed));
    assert.equal(brk.error.action, 'do_not_retry');
    assert.match(brk.error.message, /1 to 5 letters/);
    // The same snapshot the dealer tool gives for one ticker.
    const spy = (await answerOf(client, 'derived_dealer_gex_history', { ticker: 'SPY' })).data as Row[];
    const single = spy[0] as { spot_usd: number; summary: Row };
    const row = rows.find((r) => r['ticker'] === 'SPY');
    assert.equal(row?.['spot_usd'], single.spot_usd);
    assert.equal(row?.['gamma_flip_usd'], single.summary['gamma_flip_usd']);
    // Read again at once: from the cache.
    assert.equal((await answerOf(client, 'derived_dealer_gex_compare', { tickers: 'SPY,QQQ,IWM,AAPL' })).meta['units'], 0);
  });
});

test("dealer session summaries of a sector's largest names in one call, within 3 calls' worth of tokens", async () => {
  await withServer(async (client, sim) => {
    const { answer, charged } = await spent(sim, () =>
      answerOf(client, 'derived_dealer_gex_compare', { sector: 'Technology', view: 'sessions' }),
    );
    const rows = answer.data as Row[];
    assert.ok(rows.length >= 5 && rows.length <= 10, `${rows.length} names`);
    assert.ok(rows.every((r) => DEALER_TICKER_PATTERN.test(String(r['ticker']))));
    assert.equal(new Set(rows.map((r) => r['session_date_et'])).size, 1, 'one session for every name');
    assert.equal(answer.meta['units'], charged);
    assert.ok(JSON.stringify(answer).length < 16_000, `${JSON.stringify(answer).length} characters`);
  });
});

test('a dealer ticker the upstream refuses is reported beside the others; a call none of whose tickers answers is an error naming each', async () => {
  await withSimulator({}, async (sim) => {
    const refused = {
      status: 503,
      body: {
        error: {
          code: 'SERVICE_DISABLED',
          message: 'Maintenance.',
          tags: [],
          docs_url: 'https://api.example.com/docs#SERVICE_DISABLED',
          request_id: null,
        },
      },
    };
    const proxy = await startSimProxy(sim.url, (path) => (path.includes('/dealer-gex/QQQ/') ? { answer: refused } : {}));
    const { client, close } = await connectV2({ baseUrl: proxy.url, key: 'sim-live-key' });
    try {
      const answer = await answerOf(client, 'derived_dealer_gex_compare', { tickers: 'SPY,QQQ' });
      assert.deepEqual(
        (answer.data as Row[]).map((r) => r['ticker']),
        ['SPY'],
      );
      assert.equal(answer.failed?.[0]?.ticker, 'QQQ');
      assert.equal(answer.failed?.[0]?.error.code, 'SERVICE_DISABLED');
      const none = errorOf(await client.callTool({ name: 'derived_dealer_gex_compare', arguments: { tickers: 'QQQ' } }));
      assert.equal(none.code, 'SERVICE_DISABLED');
      assert.match(none.message, /QQQ SERVICE_DISABLED/);
    } finally {
      await close();
      await proxy.close();
    }
  });
});

test('the most shorted names of a sector in one call: only its names, highest first, the values the screener gives', async () => {
  await withServer(async (client, sim) => {
    const { answer, charged } = await spent(sim, () => answerOf(client, 'shorts_sector_screener', { sector: 'Technology', limit: 5 }));
    const rows = answer.data as Row[];
    assert.equal(rows.length, 5);
    assert.equal(answer.meta['units'], charged);
    const pcts = rows.map((r) => Number(r['short_float_pct']));
    assert.deepEqual(
      pcts,
      [...pcts].sort((a, b) => b - a),
    );
    const sector = (await answerOf(client, 'stocks_sector_tickers', { sector: 'Technology' })).data as Row[];
    // The sector list's rows name the ticker as the dialect does (`symbol` in some): read under its name.
    const tickerField = fieldName(sim.api.dialect, 'stocks.sector_tickers', 'ticker');
    const names = new Set(sector.map((r) => r[tickerField]));
    assert.ok(names.size >= 5 && !names.has(undefined), `the sector's names under ${tickerField}`);
    assert.deepEqual(
      rows.filter((r) => !names.has(r['ticker'])).map((r) => r['ticker']),
      [],
      'every name is of the sector',
    );
    const top = rows[0];
    const screened = (await answerOf(client, 'shorts_short_screener', { tickers: String(top?.['ticker']) })).data as Row[];
    // The same fact in both tools; the screener over names gives it as a number whatever form the upstream sent.
    assert.equal(typeof top?.['short_float_pct'], 'number');
    assert.equal(Number(screened[0]?.['short_float_pct']), top?.['short_float_pct']);
    const byDays = (await answerOf(client, 'shorts_sector_screener', { sector: 'Technology', sort_by: 'days_to_cover' })).data as Row[];
    const days = byDays.map((r) => Number(r['days_to_cover']));
    assert.deepEqual(
      days,
      [...days].sort((a, b) => b - a),
    );
  });
});

test("one name's squeeze check in one call: every part, agreeing with each dataset's own tool, a failed part beside the others", async () => {
  await withServer(async (client, sim) => {
    const { answer, charged } = await spent(sim, () => answerOf(client, 'ticker_briefing', { ticker: 'GME' }));
    const brief = answer.data as Record<string, Row>;
    for (const part of ['short_interest', 'short_volume', 'dark_pool', 'iv_rank'])
      assert.ok(brief[part], `${part}: ${JSON.stringify(answer).slice(0, 300)}`);
    assert.equal(answer.meta['units'], charged);
    // Open-interest changes, or (an upstream whose pages read hold none for it: vendor pages the
    // whole market 25 rows at a time) said so, never zeros; and said as the tool's own answer reads:
    // "has no" only where it read everything, "in the rows read" where more follow.
    const oi = await answerOf(client, 'market_oi_change', { tickers: 'GME', limit: 50 });
    const oiNotice = String(answer.meta['notice']);
    if (!brief['open_interest_change'])
      assert.match(
        oiNotice,
        oi.meta['has_more'] === true
          ? /No open-interest change for GME in the rows read; the upstream holds more/
          : /GME has no open-interest change/,
        JSON.stringify(oi.meta),
      );
    else assert.equal(brief['open_interest_change']['complete'], oi.meta['has_more'] === false);
    assert.ok(JSON.stringify(answer).length < 4000);
    const screener = (await answerOf(client, 'shorts_short_screener', { tickers: 'GME' })).data as Row[];
    // The same facts as each dataset's own tool, as numbers whatever form the upstream sent them in.
    assert.equal(typeof brief['short_interest']?.['short_float_pct'], 'number');
    assert.equal(brief['short_interest']?.['short_float_pct'], Number(screener[0]?.['short_float_pct']));
    const anomaly: unknown = (await answerOf(client, 'volatility_anomaly', { ticker: 'GME' })).data;
    const score = (Array.isArray(anomaly) ? (anomaly as Row[])[0] : (anomaly as Row)) ?? {};
    // Read by role: the percentile under whatever name the dialect gives it (percentile_1y, iv_rank_1y...).
    const percentile = Object.entries(score).find(([name]) => /percentile|rank/.test(name))?.[1];
    assert.ok(percentile !== undefined, `the anomaly answer holds a percentile: ${JSON.stringify(score)}`);
    assert.equal(brief['iv_rank']?.['iv_percentile_1y'], Number(percentile));
    // The day's share where every print of the session was read, a floor (named so) where only the newest were.
    const darkPool = brief['dark_pool'] ?? {};
    const share = Number(darkPool['complete'] === true ? darkPool['share_of_volume_pct'] : darkPool['share_of_volume_pct_at_least']);
    assert.ok(share > 0 && share < 50, `dark-pool share ${share} %: ${JSON.stringify(darkPool)}`);
    if (darkPool['complete'] !== true) assert.equal(darkPool['share_of_volume_pct'], undefined, "a floor is not given as the day's share");
  });
  await withSimulator({}, async (sim) => {
    const refused = {
      status: 403,
      body: {
        error: {
          code: 'SCOPE_INSUFFICIENT',
          message: 'No darkpool scope.',
          tags: [],
          docs_url: 'https://api.example.com/docs',
          request_id: null,
        },
      },
    };
    const proxy = await startSimProxy(sim.url, (path) => (path.includes('/darkpool/') ? { answer: refused } : {}));
    const { client, close } = await connectV2({ baseUrl: proxy.url, key: 'sim-live-key' });
    try {
      const answer = await answerOf(client, 'ticker_briefing', { ticker: 'AMC' });
      assert.equal(answer.failed?.[0]?.part, 'dark_pool');
      assert.equal(answer.failed?.[0]?.error.code, 'SCOPE_INSUFFICIENT');
      assert.ok((answer.data as Row)['short_volume'], 'the other parts are there');
    } finally {
      await close();
      await proxy.close();
    }
  });
});

test('bad input to the tools over several names is refused before any request', async () => {
  await withServer(async (client, sim) => {
    const before = sim.api.requests.length;
    for (const [name, args, code] of [
      ['derived_dealer_gex_compare', {}, 'VALIDATION_ERROR'],
      ['derived_dealer_gex_compare', { tickers: 'A,B,C,D,E,F,G,H,I,J,K' }, 'VALIDATION_ERROR'],
      ['derived_dealer_gex_compare', { tickers: 'spy' }, 'TICKER_INVALID'],
      ['derived_dealer_gex_compare', { tickers: 'SPY', view: 'full' }, 'VALIDATION_ERROR'],
      ['shorts_sector_screener', { sector: 'Tech' }, 'VALIDATION_ERROR'],
      ['shorts_sector_screener', { sector: 'Technology', limit: 0 }, 'VALIDATION_ERROR'],
      ['ticker_briefing', { ticker: 'gme' }, 'TICKER_INVALID'],
      ['ticker_briefing', { ticker: 'GME', extra: 1 }, 'VALIDATION_ERROR'],
    ] as const) {
      const error = errorOf(await client.callTool({ name, arguments: args }));
      assert.equal(error.code, code, `${name} ${JSON.stringify(args)}`);
    }
    assert.equal(sim.api.requests.length, before, 'nothing sent');
  });
});
