/** Small HTTP helpers for tests that talk to the simulator directly. */
import { errorEnvelopeSchema, type ErrorEnvelope } from '../../src/catalog/index.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/server.js';

export const LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-quota-limit',
  'x-quota-remaining',
  'x-quota-reset-at',
] as const;

export interface SimResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export async function get(sim: RunningSimulator, path: string, key: string | null = 'sim-live-key'): Promise<SimResponse> {
  const response = await fetch(`${sim.url}${path}`, { headers: key === null ? {} : { Authorization: `Bearer ${key}` } });
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export type Envelope = ErrorEnvelope;

/** The response's body, held to the spec's envelope (the one schema, src/catalog/envelope.ts). */
export function envelopeOf(response: SimResponse): Envelope {
  return errorEnvelopeSchema.parse(response.body);
}

/** Starts a simulator for one test and closes it afterwards. */
export async function withSimulator<T>(options: SimulatorOptions, run: (sim: RunningSimulator) => Promise<T>): Promise<T> {
  const sim = await startSimulator({ materializationMs: 0, ...options });
  try {
    return await run(sim);
  } finally {
    await sim.close();
  }
}
