// What bench/call-cost.mjs and bench/call-instructions.mjs share: the small call they time
// (one dataset's tool answering a 30-row, 10 kB page), the local upstream that serves it from
// memory with the API's headers, and the two reference servers beside which it is read: the
// floor (a bare SDK server's echo) and a thin proxy (the least any server answering this call
// pays: the same page fetched with node:http over a kept-alive socket, parsed, and returned
// as text and structuredContent, with nothing checked).
import { rmSync, writeFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, DATASETS } from '../dist/catalog/index.js';
import { writeFloorServer } from './floor-server.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
export const cli = join(root, 'dist/cli.js');
export const TOOL = 'market_total_options_volume';
const PATH = '/v1/market/total-options-volume';

/** A small page of daily rows, as the dataset answers (30 rows, about 10 kB), served from memory with the API's headers. */
export async function startUpstream() {
  const day = (i) => new Date(Date.UTC(2026, 10, 20) - i * 86_400_000).toISOString().slice(0, 10);
  const rows = Array.from({ length: 30 }, (_, i) => ({
    date: day(i),
    call_volume: 21_345_678 + i * 1013,
    put_volume: 17_654_321 + i * 977,
    total_volume: 39_000_000 + i * 1990,
    call_premium_usd: 5_432_109_876.5 + i,
    put_premium_usd: 4_321_098_765.25 + i,
    total_premium_usd: 9_753_208_641.75 + i,
    put_call_ratio: 0.83 + i / 1000,
    call_open_interest: 312_345_678 + i,
    put_open_interest: 287_654_321 + i,
    session_date_et: day(i),
    source: 'consolidated-options-tape',
  }));
  const page = JSON.stringify({ data: rows, _meta: { request_id: 'req-bench', next_cursor: null, data_freshness_seconds: 60 } });
  const document = JSON.stringify(buildOpenApiDocument(DATASETS));
  const server = createServer((req, res) => {
    const isDocument = req.url?.startsWith('/v1/openapi.json');
    const body = isDocument ? document : req.url?.startsWith(PATH) ? page : '{"error":{"code":"NOT_FOUND","message":"not here"}}';
    res.writeHead(isDocument || req.url?.startsWith(PATH) ? 200 : 404, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-ratelimit-limit': '100000',
      'x-ratelimit-remaining': '99999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 60_000) * 60 + 60),
      'x-quota-limit': '100000',
      'x-quota-remaining': '99000',
      'x-quota-reset-at': '2026-12-01T00:00:00Z',
    });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    bytes: page.length,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}

/** The floor and the thin proxy as scripts in dist/ (where they find the SDK); remove() deletes them. */
export function writeReferenceServers() {
  const floor = writeFloorServer('bare');
  const bare = floor.path;
  const thin = join(root, 'dist', `.bench-thin-${process.pid}.mjs`);
  writeFileSync(
    thin,
    `import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { Agent, get } from 'node:http';
import * as z from 'zod';
const agent = new Agent({ keepAlive: true });
const fetchPage = (limit) => new Promise((resolve, reject) => {
  get(process.env.MARKET_DATA_BASE_URL + '${PATH}?limit=' + limit, { agent, headers: { authorization: 'Bearer ' + process.env.MARKET_DATA_API_KEY } }, (res) => {
    const chunks = []; res.on('data', (c) => chunks.push(c)); res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
  }).on('error', reject);
});
serveStdio(() => { const s = new McpServer({ name: 'thin', version: '1.0.0' });
s.registerTool('${TOOL}', { description: 'Total options volume', inputSchema: z.object({ limit: z.number().int().optional() }) }, async ({ limit }) => {
  const page = await fetchPage(limit ?? 30); const structuredContent = { data: page.data, meta: page._meta };
  return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent }; });
return s; });\n`,
  );
  return {
    bare,
    thin,
    remove: () => {
      floor.remove();
      rmSync(thin, { force: true });
    },
  };
}

/** The calls each case makes: the floor echoes; the others ask the small page. */
export const ECHO = { name: 'echo', arguments: { text: 'hi' } };
export const SMALL_PAGE = { name: TOOL, arguments: { limit: 30 } };
