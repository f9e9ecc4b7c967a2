/**
 * One "server process" of an account, for the multi-process tests and the benchmark: it
 * takes permits from the account gate (shared on Redis, with a stand-in fallback) and
 * sends real requests to the simulator, handling 429s as the client's policy table does.
 * Reads its settings as JSON from argv[2]; prints one JSON line per event on stdout.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AccountGate } from '../../src/api/gate/account-gate.js';
import { createAccountGate } from '../../src/redis/factory.js';
import { ResilientGate } from '../../src/redis/resilient.js';
import { HttpTransport } from '../../src/api/transport.js';
import { createRedisCacheTier } from '../../src/redis/cache.js';
import { RedisLink } from '../../src/redis/connection.js';
import { StandInGate } from './redis-local-gate.js';

export interface DriverSettings {
  mode: 'load' | 'hold' | 'cache';
  redisUrl: string;
  simUrl: string;
  apiKey: string;
  path: string;
  requests: number;
  concurrency: number;
  deadlineMs: number;
  leaseMs?: number;
  probeMs?: number;
  /** hold: permits to take and never give back. */
  hold?: number;
  /** cache: how long a stored result stays fresh. */
  ttlMs?: number;
}

export interface CallRecord {
  ok: boolean;
  code: string | null;
  /** Upstream 429s met along the way. */
  refusals: number;
  startedAt: number;
  endedAt: number;
  /** How far past its deadline the call answered (negative: before). */
  overrunMs: number;
  mode: string;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as DriverSettings;
const emit = (event: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(event)}\n`);

async function main(): Promise<void> {
  const gate = await createAccountGate({
    redisUrl: settings.redisUrl,
    apiKey: settings.apiKey,
    fallback: new StandInGate(5),
    ...(settings.leaseMs === undefined ? {} : { leaseMs: settings.leaseMs }),
    ...(settings.probeMs === undefined ? {} : { probeMs: settings.probeMs }),
  });
  const modeOf = (): string => (gate instanceof ResilientGate ? gate.activeMode : 'in-process');
  if (settings.mode === 'hold') {
    for (let i = 0; i < (settings.hold ?? 1); i += 1) {
      await gate.acquire({ free: false, deadline: Date.now() + 10_000, signal: new AbortController().signal });
    }
    emit({ held: settings.hold ?? 1, mode: modeOf() });
    setInterval(() => undefined, 60_000);
    return;
  }
  if (settings.mode === 'cache') {
    await fetchThroughCache(gate, settings);
    await gate.close();
    return;
  }
  const transport = new HttpTransport({
    baseUrl: settings.simUrl,
    apiKey: settings.apiKey,
    maxResponseBytes: 4_000_000,
    userAgent: 'redis-test',
    connections: 10,
  });
  emit({ ready: true, mode: modeOf() });
  let next = 0;
  const records: CallRecord[] = [];
  const worker = async (): Promise<void> => {
    while (next < settings.requests) {
      next += 1;
      records.push(await call(gate, transport, modeOf));
    }
  };
  await Promise.all(Array.from({ length: settings.concurrency }, worker));
  emit({ done: true, records });
  await gate.close();
  await transport.close();
}

async function call(gate: AccountGate, transport: HttpTransport, modeOf: () => string): Promise<CallRecord> {
  const startedAt = Date.now();
  const deadline = startedAt + settings.deadlineMs;
  const signal = AbortSignal.timeout(settings.deadlineMs);
  let refusals = 0;
  const end = (ok: boolean, code: string | null): CallRecord => {
    const endedAt = Date.now();
    return { ok, code, refusals, startedAt, endedAt, overrunMs: endedAt - deadline, mode: modeOf() };
  };
  for (;;) {
    let permit;
    try {
      permit = await gate.acquire({ free: false, deadline, signal });
    } catch (error) {
      return end(false, codeOf(error));
    }
    let response;
    try {
      response = await transport.get(settings.path, signal);
    } catch (error) {
      permit.release({});
      return end(false, codeOf(error));
    }
    const body = response.body as { error?: { code?: string } } | undefined;
    const code = body?.error?.code;
    permit.release({ status: response.status, headers: response.limits, code });
    if (response.status === 200) return end(true, null);
    if (response.status !== 429) return end(false, code ?? String(response.status));
    refusals += 1;
    const waitMs = (response.retryAfterSeconds ?? 1) * 1000;
    if (code === 'RATE_LIMITED') gate.pause(Date.now() + waitMs);
    else if (code === 'IN_FLIGHT_EXCEEDED') {
      gate.inFlightRefused();
      if (Date.now() + waitMs > deadline) return end(false, code);
      await sleep(waitMs);
    } else return end(false, code ?? '429');
  }
}

/** One call through the Redis tier: served by a peer's result, or fetched (202s polled) and stored. */
async function fetchThroughCache(gate: AccountGate, settings: DriverSettings): Promise<void> {
  const link = new RedisLink({ url: settings.redisUrl });
  await link.waitUntilReady(5000);
  const tier = createRedisCacheTier<unknown>({ link, apiKey: settings.apiKey, flightLeaseMs: 3000 });
  const transport = new HttpTransport({
    baseUrl: settings.simUrl,
    apiKey: settings.apiKey,
    maxResponseBytes: 4_000_000,
    userAgent: 'redis-test',
  });
  const signal = AbortSignal.timeout(settings.deadlineMs);
  emit({ ready: true });
  const outcome = await tier.shared(
    settings.path,
    settings.ttlMs ?? 30_000,
    async () => {
      for (;;) {
        const permit = await gate.acquire({ free: false, deadline: Date.now() + settings.deadlineMs, signal });
        const response = await transport.get(settings.path, signal).finally(() => undefined);
        permit.release({ status: response.status, headers: response.limits });
        if (response.status !== 202) return { value: response.body, cacheable: response.status === 200 };
        await sleep(Math.max(1, response.retryAfterSeconds ?? 1) * 1000);
      }
    },
    { signal },
  );
  emit({ cached: true, from: outcome.from, ageMs: outcome.ageMs, digest: JSON.stringify(outcome.value).length });
  await transport.close();
  await link.close();
}

function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : String(error);
}

main().catch((error: unknown) => {
  emit({ fatal: String(error) });
  process.exitCode = 1;
});
