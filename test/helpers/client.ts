/** A client wired to a simulator, with its log lines captured in memory. */
import { Writable } from 'node:stream';
import { MarketDataClient, type ClientDeps } from '../../src/api/client.js';
import { DATASETS, validateRequest, type DatasetDefinition } from '../../src/catalog/index.js';
import { ConfigSchema, type Config } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import type { RunningSimulator } from '../../src/simulator/server.js';

export interface TestClient {
  client: MarketDataClient;
  logs: string[];
  /** Validates like the MCP layer would, then calls the dataset. */
  call: (
    operationId: string,
    ticker?: string,
    query?: Record<string, string | number>,
    options?: Parameters<MarketDataClient['dataset']>[3],
  ) => ReturnType<MarketDataClient['dataset']>;
}

export function dataset(operationId: string): DatasetDefinition {
  const found = DATASETS.find((d) => d.operationId === operationId);
  if (!found) throw new Error(`no dataset ${operationId}`);
  return found;
}

export function makeClient(
  sim: RunningSimulator,
  overrides: Partial<Config> = {},
  key = 'sim-live-key',
  deps: Partial<Omit<ClientDeps, 'config' | 'log'>> = {},
): TestClient {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const config = ConfigSchema.parse({ apiKey: key, baseUrl: sim.url, logLevel: 'debug', ...overrides });
  const client = new MarketDataClient({ config, log: createLogger('debug', sink), ...deps });
  const call: TestClient['call'] = (operationId, ticker, query = {}, options) => {
    const d = dataset(operationId);
    const checked = validateRequest(d, ticker, query);
    // Tests of upstream validation pass raw values through unchanged.
    const [t, q] = checked.ok ? [checked.ticker, checked.query] : [ticker, query];
    return client.dataset(d, t, q, options);
  };
  return { client, logs, call };
}

/** Resolves to the error a promise rejects with, or fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<import('../../src/api/errors.js').ApiError> {
  const { ApiError } = await import('../../src/api/errors.js');
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** Runs `run` with a client wired to `sim`, and closes the client afterwards. */
export async function withClient<T>(
  sim: RunningSimulator,
  run: (client: TestClient) => Promise<T>,
  overrides: Partial<Config> = {},
  key?: string,
  deps?: Partial<Omit<ClientDeps, 'config' | 'log'>>,
): Promise<T> {
  const wired = makeClient(sim, overrides, key, deps);
  try {
    return await run(wired);
  } finally {
    await wired.client.close();
  }
}
