/**
 * Answers the spec does not describe come back whole; a bug of ours is logged with its
 * stack and answered as a non-recoverable INTERNAL_ERROR.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { rowsIn } from '../../src/api/payload-parts.js';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createLogger } from '../../src/log.js';
import { createServer } from '../../src/mcp/server.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { publication } from '../../src/simulator/dialect-params.js';
import { withSimulator } from '../helpers/http.js';
import { servedDataset } from '../helpers/upstream.js';
import { errorOf, textOf, freshCacheDir } from '../helpers/mcp.js';

async function withServer(sim: RunningSimulator, run: (client: Client, runtime: Runtime, logs: string[]) => Promise<void>): Promise<void> {
  const runtime = await createRuntime({
    MARKET_DATA_BASE_URL: sim.url,
    MARKET_DATA_API_KEY: 'sim-admin-key',
    MARKET_DATA_LOG_LEVEL: 'silent',
    MARKET_DATA_CACHE_DIR: freshCacheDir(),
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const server = createServer({ ...runtime.deps, log: createLogger('info', sink) });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 't', version: '1' });
  try {
    await server.connect(serverTransport);
    await client.connect(clientTransport);
    await run(client, runtime, logs);
  } finally {
    await client.close();
    await runtime.close();
  }
}

test('a 200 whose body is not {data, _meta} comes back whole, less _meta, as a success', async () => {
  await withSimulator({}, async (sim) => {
    await withServer(sim, async (client) => {
      const body = { rows: [{ ticker: 'GME', short_float_pct: 21.5 }], period: '2026-11-14', _meta: { request_id: 'req_x', notice: 'n' } };
      sim.api.faults.inject({ kind: 'raw', status: 200, body: JSON.stringify(body), contentType: 'application/json' });
      const result = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 7 } });
      assert.notEqual(result.isError, true, textOf(result));
      const structured = result.structuredContent as { data: { rows?: unknown[] }; meta: { request_id?: string } };
      // Where the dialect pages the list by page number, offset or `Link` header, a page that says
      // nothing of an end (this one has no total and no Link) is read on: the rows after it follow.
      const paging = publication(servedDataset(sim, '/v1/shorts/short-screener'), sim.api.dialect).paging?.kind;
      const paged = paging === 'link' || paging === 'page-number' || paging === 'offset';
      const rows = paged ? structured.data.rows?.slice(0, body.rows.length) : structured.data.rows;
      assert.deepEqual({ ...structured.data, rows }, { rows: body.rows, period: body.period });
      assert.equal(structured.meta.request_id, 'req_x', 'the upstream _meta still feeds meta');
    });
  });
});

test('fields keep columns of the rows inside such a body, and the context beside the rows stays', async () => {
  // Our dialect answers the page as it is (a dialect that pages by number or offset reads on past a page that says nothing).
  await withSimulator({ dialect: 'spec' }, async (sim) => {
    await withServer(sim, async (client) => {
      const rows = [
        { ticker: 'GME', short_float_pct: 21.5, days_to_cover: 2.1 },
        { ticker: 'AMC', short_float_pct: 18.2, days_to_cover: 1.4 },
      ];
      const body = { rows, period: '2026-11-14', _meta: { request_id: 'req_y' } };
      sim.api.faults.inject({ kind: 'raw', status: 200, body: JSON.stringify(body), contentType: 'application/json' });
      const result = await client.callTool({
        name: 'shorts_short_screener',
        arguments: { limit: 7, fields: ['ticker', 'short_float_pct'] },
      });
      assert.notEqual(result.isError, true, textOf(result));
      const structured = result.structuredContent as { data: unknown };
      assert.deepEqual(structured.data, {
        rows: rows.map(({ ticker, short_float_pct }) => ({ ticker, short_float_pct })),
        period: body.period,
      });
    });
  });
});

test('rows read here over the upstream pages keep the context beside them, and fields keeps it too', async () => {
  // vendor takes no page size: limit is applied here over its pages (local-pages.ts), whatever MARKET_DATA_SIM_DIALECT says.
  await withSimulator({ dialect: 'vendor' }, async (sim) => {
    await withServer(sim, async (client) => {
      const body = { items: [{ ticker: 'GME', short_float_pct: 21.5 }], period: '2026-11-14', next: null };
      for (const args of [{ limit: 7 }, { limit: 6, fields: ['short_float_pct'] }]) {
        sim.api.faults.inject({ kind: 'raw', status: 200, body: JSON.stringify(body), contentType: 'application/json' });
        const result = await client.callTool({ name: 'shorts_short_screener', arguments: args });
        assert.notEqual(result.isError, true, textOf(result));
        const data = (result.structuredContent as { data: unknown }).data;
        const rows = args.fields ? [{ short_float_pct: 21.5 }] : body.items;
        assert.deepEqual(data, { items: rows, period: body.period }, `${JSON.stringify(args)}: period is not lost`);
      }
    });
  });
});

test('a bug in a tool handler is logged with its stack and answered as a non-recoverable INTERNAL_ERROR, never kept', async () => {
  await withSimulator({}, async (sim) => {
    await withServer(sim, async (client, runtime, logs) => {
      const real = runtime.deps.client.readPage.bind(runtime.deps.client);
      let calls = 0;
      runtime.deps.client.readPage = (...args) => {
        calls += 1;
        if (calls === 1) throw new TypeError('cannot read properties of undefined (reading "rows")');
        return real(...args);
      };
      const broken = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 5 } });
      const error = errorOf(broken);
      assert.equal(error.code, 'INTERNAL_ERROR');
      assert.equal(error.recoverable, false);
      assert.equal(error.action, 'do_not_retry');
      assert.match(textOf(broken), /Do not retry/);
      const line = logs.find((l) => l.includes('tool handler failed'));
      assert.ok(line, 'the failure is logged');
      const logged = JSON.parse(line) as { tool: string; err: { type: string; stack: string } };
      assert.equal(logged.tool, 'shorts_short_screener');
      assert.equal(logged.err.type, 'TypeError');
      assert.match(logged.err.stack, /at /, 'with its stack');
      // The same call again asks anew: the failure was not kept as an answer.
      const again = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 5 } });
      assert.notEqual(again.isError, true, textOf(again));
    });
  });
});

test('an error of a tool with an outputSchema carries no structuredContent; its text holds the whole error', async () => {
  await withSimulator({}, async (sim) => {
    await withServer(sim, async (client) => {
      sim.api.faults.inject({ kind: 'error', code: 'SCOPE_INSUFFICIENT', hint: 'GET /v1/discover lists the scope.' });
      const result = await client.callTool({ name: 'derived_dealer_gex_history', arguments: { ticker: 'SPY' } });
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent, undefined, 'nothing that could break the declared outputSchema');
      const error = errorOf(result);
      assert.equal(error.code, 'SCOPE_INSUFFICIENT');
      // The upstream's hint first, then the tools of other toolsets the key holds.
      assert.match(error.hint ?? '', /^GET \/v1\/discover lists the scope\./);
      assert.equal(error.action, 'check_configuration');
      assert.ok(error.request_id, 'the request id to quote');
      assert.ok('retry_after_seconds' in error);
    });
  });
});

test('a result that fails shaping is not kept: the same call asks the API anew and succeeds', async () => {
  await withSimulator({}, async (sim) => {
    await withServer(sim, async (client, runtime) => {
      const real = runtime.deps.client.readPage.bind(runtime.deps.client);
      let poisoned = false;
      runtime.deps.client.readPage = async (...args) => {
        const result = await real(...args);
        if (!poisoned) {
          poisoned = true;
          // The very object the cache holds now breaks whoever reads its rows: a shaping bug.
          Object.defineProperty(result, 'data', {
            get: () => {
              throw new TypeError('cannot read the rows');
            },
          });
        }
        return result;
      };
      const upstream = (): number => sim.api.requests.filter((r) => r.operationId === 'shorts.short_screener').length;
      const broken = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 5 } });
      assert.equal(errorOf(broken).code, 'INTERNAL_ERROR');
      assert.equal(upstream(), 1);
      const again = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 5 } });
      assert.notEqual(again.isError, true, textOf(again));
      assert.equal(upstream(), 2, 'asked anew, not served from a cached result that had failed');
    });
  });
});

test('a row that fails shaping is not kept either, also when the rows were read over several pages here', async () => {
  await withSimulator({}, async (sim) => {
    await withServer(sim, async (client, runtime) => {
      const real = runtime.deps.client.readPage.bind(runtime.deps.client);
      let poisoning = true;
      runtime.deps.client.readPage = async (...args) => {
        const result = await real(...args);
        const row = (rowsIn(result.data) ?? [])[0];
        if (poisoning && typeof row === 'object' && row !== null) {
          // The rows are read whole; only shaping them breaks. Every page of the first call: an
          // upstream that takes no page size (vendor) answers its 30 rows over two pages read here.
          Object.defineProperty(row, 'ticker', {
            enumerable: true,
            get: () => {
              throw new TypeError('cannot read the row');
            },
          });
        }
        return result;
      };
      const upstream = (): number => sim.api.requests.filter((r) => r.operationId === 'shorts.short_screener').length;
      const broken = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 30 } });
      assert.equal(errorOf(broken).code, 'INTERNAL_ERROR');
      poisoning = false;
      const spent = upstream();
      const again = await client.callTool({ name: 'shorts_short_screener', arguments: { limit: 30 } });
      assert.notEqual(again.isError, true, textOf(again));
      assert.equal(upstream(), 2 * spent, 'every page asked anew, none served from a cache whose rows had failed shaping');
    });
  });
});

test("a row that fails shaping is not kept when only the tool's own row filter read it, on a larger page than the call's limit", async () => {
  await withSimulator({}, async (sim) => {
    await withServer(sim, async (client, runtime) => {
      const real = runtime.deps.client.readPage.bind(runtime.deps.client);
      let poisoning = true;
      runtime.deps.client.readPage = async (...args) => {
        const result = await real(...args);
        const row = (rowsIn(result.data) ?? [])[0];
        if (poisoning && typeof row === 'object' && row !== null) {
          // min_size reads the size, not the ticker: the read goes through, shaping the row breaks.
          Object.defineProperty(row, 'ticker', {
            enumerable: true,
            get: () => {
              throw new TypeError('cannot read the row');
            },
          });
        }
        return result;
      };
      const upstream = (): number => sim.api.requests.filter((r) => r.operationId === 'darkpool.by_ticker').length;
      const args = { ticker: 'AAPL', min_size: 1, limit: 5 };
      const broken = await client.callTool({ name: 'darkpool_by_ticker', arguments: args });
      assert.equal(errorOf(broken).code, 'INTERNAL_ERROR');
      poisoning = false;
      const spent = upstream();
      assert.ok(spent > 0);
      const again = await client.callTool({ name: 'darkpool_by_ticker', arguments: args });
      assert.notEqual(again.isError, true, textOf(again));
      assert.equal(upstream(), 2 * spent, 'the pages read for the filter asked anew, not served from the cache that failed shaping');
    });
  });
});
