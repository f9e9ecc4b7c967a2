/** An MCP client wired in memory to a server whose upstream is a simulator the test owns. */
import assert from 'node:assert/strict';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { createServer } from '../../src/mcp/server.js';
import { createRuntime } from '../../src/runtime.js';
import type { RunningSimulator, SimulatorOptions } from '../../src/simulator/server.js';
import { withSimulator } from './http.js';
import { sizeCap, takesPageSize, upstreamList, upstreamSnapshots as upstreamSnapshots_ } from './upstream.js';
import { freshCacheDir } from './mcp.js';

/** Generous limits: these tests read whole histories, not the rate limiter. */
export const ROOMY = { limits: { perWindow: 100_000, perIpPerWindow: 100_000 } };

/**
 * The simulator's clock held at the moment the test starts. In a live session a dealer
 * snapshot is published every 5 minutes (and a session opens at 09:30 ET), so a history
 * read straight from the simulator and the same history read through the server a second
 * later can differ by a snapshot the market really published in between (CI failed on it
 * at 13:55 ET). These tests compare the two readings, not the market's motion.
 */
export function stillMarket(): { now: () => number } {
  const at = Date.now();
  return { now: () => at };
}

export interface Answer {
  data: unknown;
  meta: Record<string, unknown> & { next_cursor?: string; truncated: boolean; has_more?: boolean };
}

export interface Session {
  client: Client;
  sim: RunningSimulator;
  /** Calls a tool; fails the test on an error result. */
  answer: (name: string, args: Record<string, unknown>) => Promise<Answer>;
  /** Calls a tool and returns the raw result. */
  call: (name: string, args: Record<string, unknown>) => Promise<{ structuredContent?: unknown; isError?: unknown; content?: unknown }>;
}

export function tokens(value: unknown): number {
  return countTokens(JSON.stringify(value));
}

export async function withSession<T>(
  env: Record<string, string>,
  run: (session: Session) => Promise<T>,
  key = 'sim-live-key',
  simulator: SimulatorOptions = {},
): Promise<T> {
  return withSimulator({ ...ROOMY, ...stillMarket(), ...simulator }, async (sim) => {
    const runtime = await createRuntime({
      MARKET_DATA_BASE_URL: sim.url,
      MARKET_DATA_API_KEY: key,
      MARKET_DATA_LOG_LEVEL: 'silent',
      MARKET_DATA_CACHE_DIR: freshCacheDir(),
      ...env,
    });
    // The tools as a host lists them once the upstream's document is read: on a loaded machine
    // a first start's document may come after the start's wait, and one server instance made
    // before it (createServer) would keep the catalog's tools for the whole test.
    await runtime.registry.documentRead();
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const server = createServer(runtime.deps);
    const client = new Client({ name: 'answers-test', version: '1' });
    try {
      await server.connect(serverTransport);
      await client.connect(clientTransport);
      const call: Session['call'] = (name, args) => client.callTool({ name, arguments: args });
      const answer: Session['answer'] = async (name, args) => {
        const result = await call(name, args);
        // A tool with an output schema gives its error in `content` alone (see src/mcp/answers/tool-errors.ts).
        if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent ?? result.content)}`);
        return result.structuredContent as Answer;
      };
      return await run({ client, sim, answer, call });
    } finally {
      await client.close();
      await runtime.close();
    }
  });
}

/** Upstream requests one session spends before the next item gets a fresh one: well inside the spec's 60 a minute. */
const REQUESTS_PER_SESSION = 40;

/**
 * Runs `each` over `items`, opening a fresh session (server and simulator) whenever the
 * current one has sent REQUESTS_PER_SESSION requests. An upstream that sends no rate-limit
 * headers (the vendor dialect) holds the server to the spec's 60 requests a minute, rightly;
 * a test that reads every ticker would otherwise wait on that window, not test the answers.
 */
export async function forEachInSessions<T>(
  env: Record<string, string>,
  items: readonly T[],
  each: (session: Session, item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  while (next < items.length) {
    await withSession(env, async (session) => {
      const start = session.sim.api.requests.length;
      while (next < items.length && session.sim.api.requests.length - start < REQUESTS_PER_SESSION) {
        const item = items[next] as T;
        next += 1;
        await each(session, item);
      }
    });
  }
}

export interface Snapshot {
  snapshot_at: string;
  session_date_et: string;
}

/** Every dealer snapshot the upstream holds for a ticker, newest first, read page by page straight from the simulator. */
export async function upstreamSnapshots(session: Session, ticker: string): Promise<Snapshot[]> {
  return dialectSnapshots(session.sim, ticker);
}

/** The same, in whatever dialect the simulator speaks (its own parameter names, wrapper and paging). */
export async function dialectSnapshots(sim: RunningSimulator, ticker: string): Promise<Snapshot[]> {
  return (await upstreamSnapshots_(sim, ticker)) as unknown as Snapshot[];
}

/**
 * The first `limit` rows of a general list, read straight from the simulator in its
 * dialect: our names sent under its names, its page size where it takes one, its own
 * paging followed. Also how many requests that took: what a walk over the same rows
 * through the server should cost.
 */
export async function dialectList(
  sim: RunningSimulator,
  path: string,
  limit: number,
  extra: Record<string, string> = {},
): Promise<{ rows: unknown[]; requests: number }> {
  const template = sim.api.datasets.find((d) => new RegExp(`^${d.path.replace('{ticker}', '[^/]+')}$`).test(path));
  assert.ok(template, `the simulator serves ${path}`);
  const ticker = path.split('/')[template.path.split('/').indexOf('{ticker}')];
  const size = takesPageSize(sim, template.path) ? limit : undefined;
  const read = await upstreamList(sim, template.path, {
    filters: extra,
    atMost: limit,
    ...(template.ticker && ticker ? { ticker } : {}),
    ...(size === undefined ? {} : { size: Math.min(size, sizeCap(sim, template.path)) }),
  });
  return { rows: read.rows, requests: read.requests };
}
