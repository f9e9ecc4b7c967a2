/**
 * What an agent is told when rows are left out is something it can act on: no larger limit
 * past the maximum, no filter it already used, every filter the tool has, `ticker` only
 * where the tool takes one, and a word when a dealer range holds no retained session.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DATASETS } from '../../src/catalog/index.js';
import { recentSessions } from '../../src/catalog/market-calendar.js';
import { dialectNamed } from '../../src/simulator/dialect.js';
import { listPaging } from '../../src/simulator/dialect-lists.js';
import { FIXED_SEEDS } from '../helpers/dialect-seeds.js';
import { takesPageSize, upstreamList } from '../helpers/upstream.js';
import { withSession, type Answer, type Session } from '../helpers/answers-harness.js';

function moreRows(answer: Answer): string {
  const text = answer.meta['more_rows'];
  assert.equal(typeof text, 'string', `more_rows is set: ${JSON.stringify(answer.meta)}`);
  return String(text);
}

/**
 * What an answer that left rows out tells the agent: `more_rows` where the API cut rows no
 * cursor reaches (an upstream list that takes a limit and has no cursor), else the cursor
 * that reaches them (an upstream read page by page here: vendor) with, when the answer was
 * trimmed, its how_to_get_more. Undefined: the cursor alone says it, or nothing is left (an
 * upstream that pages its whole list may hold fewer rows than another cuts at its limit).
 */
function leftOut(answer: Answer): string | undefined {
  if (answer.meta.has_more !== true) {
    assert.equal(answer.meta['more_rows'], undefined, 'nothing left, nothing to advise');
    return undefined;
  }
  if (typeof answer.meta['more_rows'] === 'string') return moreRows(answer);
  assert.ok(answer.meta.next_cursor, `no more_rows: a cursor reaches the rest: ${JSON.stringify(answer.meta)}`);
  const trimmed = answer.meta['trimmed'] as { how_to_get_more?: string } | undefined;
  return trimmed?.how_to_get_more;
}

async function parametersOf(session: Session, tool: string): Promise<string[]> {
  const found = (await session.client.listTools()).tools.find((t) => t.name === tool);
  return Object.keys((found?.inputSchema as { properties: Record<string, unknown> }).properties);
}

/** The parameter names a piece of advice offers after "narrow with". */
function narrowingNamed(text: string): string[] {
  const list = /narrow with ([a-z_, ]+)/.exec(text)?.[1] ?? '';
  return list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

test('more_rows at the maximum limit does not offer a larger one: it names the filters, or says one call cannot hold it all', async () => {
  await withSession({}, async (session) => {
    const congress = await session.answer('congress_recent_trades', { limit: 500 });
    assert.equal(congress.meta.has_more, true, 'more trades than one call holds, in every dialect');
    const text = leftOut(congress) ?? '';
    assert.doesNotMatch(text, /raise limit|larger limit/, text);
    if (congress.meta['more_rows'] !== undefined) assert.match(text, /500 is the maximum/, text);
    const named = narrowingNamed(text);
    for (const filter of ['chamber', 'side', 'tickers', 'from', 'to']) assert.ok(named.includes(filter), `names ${filter}: ${text}`);
    const params = await parametersOf(session, 'congress_recent_trades');
    for (const name of named) assert.ok(params.includes(name), `${name} is a parameter of the tool`);

    const filings = await session.answer('fundamentals_fundamental_breakdown', { ticker: 'AAPL', limit: 40 });
    const filingsText = leftOut(filings) ?? '';
    assert.doesNotMatch(filingsText, /raise limit|larger limit/, filingsText);
    if (filings.meta['more_rows'] !== undefined) {
      assert.match(filingsText, /40 is the maximum/, filingsText);
      assert.match(filingsText, /more than one call can return/, filingsText);
    }
  });
});

test('more_rows below the maximum offers a larger limit up to it, and names only filters the call did not use', async () => {
  await withSession({}, async (session) => {
    const nvda = await session.answer('congress_recent_trades', { tickers: 'NVDA', limit: 2 });
    const text = leftOut(nvda);
    if (text !== undefined) {
      if (nvda.meta['more_rows'] !== undefined) assert.match(text, /larger limit, up to 500/, text);
      const named = narrowingNamed(text);
      assert.ok(!named.includes('tickers'), `tickers is already used: ${text}`);
      for (const filter of ['chamber', 'side']) assert.ok(named.includes(filter), `names ${filter}: ${text}`);
    }

    const summary = await session.answer('shorts_short_screener', { format: 'summary', limit: 3 });
    const summaryText = leftOut(summary);
    if (summaryText !== undefined) {
      assert.ok(!narrowingNamed(summaryText).includes('format'), `format is already summary: ${summaryText}`);
      assert.ok(narrowingNamed(summaryText).includes('min_short_float_pct'), summaryText);
    }

    const directory = await session.answer('stocks_ticker_exchanges', {});
    const directoryText = leftOut(directory);
    if (directoryText !== undefined) {
      assert.doesNotMatch(directoryText, /raise limit/, directoryText);
      if (directory.meta['more_rows'] !== undefined) {
        // An upstream that cuts the directory itself and takes no page size: no larger limit reaches further.
        const path = '/v1/stocks/ticker-exchanges';
        const cutByApi = !takesPageSize(session.sim, path) && (await upstreamList(session.sim, path)).cut;
        assert.match(directoryText, cutByApi ? /a larger limit reads no further/ : /up to 3000/, directoryText);
      }
    }
  });
});

test('a list the API cuts with no way past it, its limit applied here: no larger limit is offered, the filters are', async () => {
  // A fixed composed seed whose congress trades come cut (a flag, no next page) and take no page size.
  const congress = DATASETS.find((d) => d.operationId === 'congress.recent_trades');
  assert.ok(congress);
  const seed = FIXED_SEEDS.map((n) => `seed:${n}`).find((name) => {
    const paging = listPaging(dialectNamed(name), congress);
    return paging?.kind === 'none' && paging.cut !== null && paging.cut < 400 && paging.flag;
  });
  assert.ok(seed, 'one of the fixed seeds cuts the congress trades with no next page');
  await withSession(
    {},
    async (session) => {
      const answer = await session.answer('congress_recent_trades', { limit: 400 });
      assert.equal(answer.meta.has_more, true);
      const text = moreRows(answer);
      assert.doesNotMatch(text, /ask a larger limit/, text);
      assert.match(text, /a larger limit reads no further/, text);
      for (const filter of ['chamber', 'side', 'tickers']) assert.ok(narrowingNamed(text).includes(filter), `names ${filter}: ${text}`);
    },
    'sim-live-key',
    { dialect: seed },
  );
});

test('advice and cursor hints name ticker only on tools that take one', async () => {
  await withSession({ MARKET_DATA_RESULT_TOKENS: '600' }, async (session) => {
    const params = await parametersOf(session, 'congress_recent_trades');
    assert.ok(!params.includes('ticker'));
    const first = await session.answer('congress_recent_trades', { limit: 200 });
    const how = (first.meta['trimmed'] as { how_to_get_more: string }).how_to_get_more;
    assert.doesNotMatch(how, /\bticker\b/, how);
    assert.ok(first.meta.next_cursor);
    const changed = await session.call('congress_recent_trades', { limit: 100, cursor: first.meta.next_cursor });
    const error = (changed.structuredContent as { error: { hint: string } }).error;
    assert.doesNotMatch(error.hint, /\bticker\b/, error.hint);
    assert.match(error.hint, /only cursor/, error.hint);

    const filings = await session.answer('fundamentals_fundamental_breakdown', { ticker: 'AAPL', limit: 40 });
    const trimmed = filings.meta['trimmed'] as { how_to_get_more: string } | undefined;
    assert.ok(trimmed, 'forty filings are cut to a 600-token budget');
    assert.match(trimmed.how_to_get_more, /ticker and cursor/, trimmed.how_to_get_more);
  });
});

test('a dealer range wholly before the retained sessions says so and names the sessions held, in every view', async () => {
  await withSession({}, async (session) => {
    const held = recentSessions(session.sim.api.now(), 3).map((s) => s.date);
    const oldest = [...held].sort()[0] ?? '';
    // The week before the oldest session held.
    const to = new Date(Date.parse(`${oldest}T12:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const from = new Date(Date.parse(`${oldest}T12:00:00Z`) - 8 * 86_400_000).toISOString().slice(0, 10);
    for (const view of ['latest', 'levels', 'full']) {
      const answer = await session.answer('derived_dealer_gex_history', { ticker: 'SPY', view, from, to });
      const empty = view === 'levels' ? (answer.data as { sessions: unknown[] }).sessions : (answer.data as unknown[]);
      assert.deepEqual(empty, [], `${view}: no snapshots in the range`);
      assert.equal(answer.meta.has_more, false);
      const notice = typeof answer.meta['notice'] === 'string' ? answer.meta['notice'] : '';
      assert.match(notice, new RegExp(`No snapshots from ${from} to ${to}`), `${view}: ${notice}`);
      for (const date of held) assert.ok(notice.includes(date), `${view}: notice names held session ${date}: ${notice}`);
    }
  });
});
