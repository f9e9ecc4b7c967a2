import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connectV2, textOf } from '../helpers/mcp.js';
import { catalogDocument, eventually, withFakeUpstream } from '../helpers/fake-upstream.js';

const KEY = 'fake-key-0123456789';
const SCREENER = '/v1/shorts/short-screener';

test('a running stdio server follows the upstream catalog: changed, removed and restored datasets and parameters, with notifications', async () => {
  await withFakeUpstream(async (fake) => {
    const doc = catalogDocument();
    fake.document = doc;
    const server = await connectV2({ baseUrl: fake.url, key: KEY, env: { MARKET_DATA_CATALOG_REFRESH_S: '1' } });
    let notifications = 0;
    server.client.setNotificationHandler('notifications/tools/list_changed', () => void (notifications += 1));
    const tools = async () => (await server.client.listTools()).tools;
    const tool = async (name: string) => (await tools()).find((t) => t.name === name);
    const propertiesOf = async (name: string) => Object.keys((await tool(name))?.inputSchema.properties ?? {});
    try {
      assert.ok(await tool('shorts_short_screener'));
      const before = notifications;

      // A parameter added upstream reaches the running server.
      const screener = doc.paths[SCREENER];
      assert.ok(screener);
      const saved = JSON.parse(JSON.stringify(screener)) as typeof screener;
      screener.get.parameters.push({
        name: 'exchange',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['NYSE', 'NASDAQ'] },
      });
      await eventually(async () => (await propertiesOf('shorts_short_screener')).includes('exchange'), 10_000, 'the new parameter');
      assert.ok(notifications > before, 'tools/list_changed was sent for the changed tool');

      // The parameter removed again.
      const afterAdd = notifications;
      screener.get.parameters.pop();
      await eventually(async () => !(await propertiesOf('shorts_short_screener')).includes('exchange'), 10_000, 'the parameter gone');
      assert.ok(notifications > afterAdd);

      // The whole dataset removed upstream: the tool goes.
      const afterParam = notifications;
      delete doc.paths[SCREENER];
      await eventually(async () => (await tool('shorts_short_screener')) === undefined, 10_000, 'the tool gone');
      assert.ok(notifications > afterParam);

      // ...and restored: the tool comes back, with no "already registered" failure.
      const afterRemove = notifications;
      doc.paths[SCREENER] = saved;
      await eventually(async () => (await tool('shorts_short_screener')) !== undefined, 10_000, 'the tool back');
      assert.ok(notifications > afterRemove);
      assert.doesNotMatch(server.stderr(), /already registered|openapi\.json unavailable/);

      // Nothing changes upstream: no notification across further refreshes.
      const settled = notifications;
      const refreshes = fake.requests.filter((r) => r.path === '/v1/openapi.json').length;
      await eventually(() => fake.requests.filter((r) => r.path === '/v1/openapi.json').length >= refreshes + 2, 10_000, 'two refreshes');
      assert.equal(notifications, settled, 'an unchanged document sends no list_changed');
    } finally {
      await server.close();
    }
  });
});

test('an upstream that moves ticker from the path to the query keeps the tool callable; booleans reach the request', async () => {
  await withFakeUpstream(async (fake) => {
    const doc = catalogDocument();
    const dividends = doc.paths['/v1/stocks/dividends/{ticker}'];
    assert.ok(dividends);
    delete doc.paths['/v1/stocks/dividends/{ticker}'];
    for (const param of dividends.get.parameters) if (param['name'] === 'ticker') param['in'] = 'query';
    dividends.get.parameters.push({ name: 'adjusted', in: 'query', required: false, schema: { type: 'boolean' } });
    doc.paths['/v1/stocks/dividends'] = dividends;
    fake.document = doc;
    const server = await connectV2({ baseUrl: fake.url, key: KEY });
    try {
      const listed = (await server.client.listTools()).tools.find((t) => t.name === 'stocks_dividends');
      assert.ok(listed);
      assert.deepEqual(listed.inputSchema.required, ['ticker'], 'ticker is required once');
      const result = await server.client.callTool({ name: 'stocks_dividends', arguments: { ticker: 'SPY', adjusted: true } });
      assert.notEqual(result.isError, true, textOf(result));
      const sent = fake.dataRequests().map((r) => r.path);
      assert.equal(sent.length, 1);
      const url = new URL(sent[0] ?? '', 'http://x');
      assert.equal(url.pathname, '/v1/stocks/dividends');
      assert.equal(url.searchParams.get('ticker'), 'SPY');
      assert.equal(url.searchParams.get('adjusted'), 'true');
    } finally {
      await server.close();
    }
  });
});
