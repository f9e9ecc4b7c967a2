/**
 * A fake of the Market Data Read API that a test controls byte by byte: a mutable
 * /v1/openapi.json, and a handler for every other request. It records each request so a
 * test can tell what reached the upstream.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildOpenApiDocument, DATASETS } from '../../src/catalog/index.js';

export interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as is; anything else as JSON. */
  body?: unknown;
  /** Answers after this long, as a slow upstream; a client that hangs up first is seen in `closedEarly`. */
  delayMs?: number;
}

export interface SeenRequest {
  path: string;
  authorization: string | undefined;
  /** The client closed the connection before the answer was written (it aborted the request). */
  closedEarly: boolean;
}

export interface FakeUpstream {
  url: string;
  /** The document served at /v1/openapi.json; replace it or mutate it at will. */
  document: unknown;
  /** Answers the document request instead of `document` when it returns an answer (e.g. a 429 at start). */
  documentAnswer?: (() => FakeAnswer | undefined) | undefined;
  /** Answers every request but the document; by default a small `{data, _meta}` payload. */
  answer: (req: IncomingMessage, url: URL) => FakeAnswer;
  requests: SeenRequest[];
  /** Requests other than the document. */
  dataRequests(): SeenRequest[];
  close(): Promise<void>;
}

/** Our own catalog's document, as a mutable plain object. */
export function catalogDocument(): { paths: Record<string, { get: Record<string, unknown> & { parameters: Record<string, unknown>[] } }> } {
  return JSON.parse(JSON.stringify(buildOpenApiDocument(DATASETS))) as never;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  const fake: FakeUpstream = {
    url: '',
    document: catalogDocument(),
    answer: () => ({ body: { data: [{ value: 1 }], _meta: { request_id: 'req-fake' } } }),
    requests: [],
    dataRequests: () => fake.requests.filter((r) => !r.path.startsWith('/v1/openapi.json')),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const seen: SeenRequest = { path: `${url.pathname}${url.search}`, authorization: req.headers.authorization, closedEarly: false };
    fake.requests.push(seen);
    res.once('close', () => (seen.closedEarly = !res.writableFinished));
    const answer: FakeAnswer =
      url.pathname === '/v1/openapi.json' ? (fake.documentAnswer?.() ?? { body: fake.document }) : fake.answer(req, url);
    const body = answer.body;
    const bytes = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body ?? null);
    // A generous rate window, as a large account's: tests that make many calls are not queued.
    const window = {
      'x-ratelimit-limit': '100000',
      'x-ratelimit-remaining': '99999',
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60),
    };
    const send = (): void => {
      if (res.destroyed) return;
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...window, ...answer.headers });
      res.end(bytes);
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

export async function withFakeUpstream<T>(run: (fake: FakeUpstream) => Promise<T>): Promise<T> {
  const fake = await startFakeUpstream();
  try {
    return await run(fake);
  } finally {
    await fake.close();
  }
}

/** Polls `check` until it holds or `ms` passes: waiting for an event, not timing one. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
