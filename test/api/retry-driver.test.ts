/**
 * The retry table of ARCHITECTURE.md ("Behaviour per upstream answer"), row by row, on
 * the retry driver alone: scripted answers, a gate that records what it is told, and a
 * clock that moves only when the driver sleeps.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_TABLE, type ErrorCode } from '../../src/catalog/index.js';
import { ApiError, errorFromResponse } from '../../src/api/errors.js';
import type { AccountGate, GateView, PermitOutcome, PermitRequest, SendPermit } from '../../src/api/gate/account-gate.js';
import { driveRetries, type AttemptAnswer } from '../../src/api/retry-driver.js';
import type { Flight, SharedProgress } from '../../src/api/shared-request.js';

const T0 = 1_800_000_000_000;

/** A gate that grants at once and records, in order, what the driver tells it. */
class RecordingGate implements AccountGate {
  readonly told: string[] = [];
  acquire(request: PermitRequest): Promise<SendPermit> {
    this.told.push(request.free ? 'acquire free' : 'acquire');
    return Promise.resolve({
      release: (outcome: PermitOutcome) => this.told.push(`release ${outcome.status ?? '-'} ${outcome.code ?? ''}`.trim()),
    });
  }
  pause(untilMs: number): void {
    this.told.push(`pause +${untilMs - clock.time}`);
  }
  inFlightRefused(): void {
    this.told.push('in-flight refused');
  }
  latchQuota(resetAtMs: number): void {
    this.told.push(`latch quota +${resetAtMs - clock.time}`);
  }
  rememberDisabled(capability: string, untilMs: number): void {
    this.told.push(`remember ${capability} +${untilMs - clock.time}`);
  }
  disabledFor(): Promise<number | undefined> {
    return Promise.resolve(undefined);
  }
  view(): Promise<GateView> {
    return Promise.reject(new Error('not used'));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const clock = { time: T0 };

interface Run {
  gate: RecordingGate;
  sleeps: number[];
  progress: string[];
  attempts: number;
  result: Promise<string>;
}

/** An upstream failure as the transport's classification would give it. */
const failure = (status: number, code: string, retryAfterSeconds?: number): ApiError =>
  errorFromResponse(
    status,
    { error: { code, message: code, ...(retryAfterSeconds === undefined ? {} : { retry_after_seconds: retryAfterSeconds }) } },
    undefined,
    undefined,
  );
const network = (): ApiError => new ApiError({ code: 'NETWORK_ERROR', status: null });

type Scripted = ApiError | 'ok' | { error: ApiError; quotaResetAt: number };

/** Drives one call through `answers`, in order; the clock moves only by the driver's sleeps. */
function drive(answers: Scripted[], options: { deadlineMs?: number; free?: boolean; random?: number } = {}): Run {
  clock.time = T0;
  const gate = new RecordingGate();
  const sleeps: number[] = [];
  const progress: string[] = [];
  const controller = new AbortController();
  const deadline = T0 + (options.deadlineMs ?? 50_000);
  const flight: Flight = {
    signal: controller.signal,
    deadline: () => deadline,
    progress: (event: SharedProgress) => progress.push(event.message),
    sending: () => undefined,
    answered: () => undefined,
  };
  const run: Run = { gate, sleeps, progress, attempts: 0, result: Promise.resolve('') };
  run.result = driveRetries<string>(
    {
      gate,
      now: () => clock.time,
      random: () => options.random ?? 0.5,
      sleep: (ms) => {
        sleeps.push(ms);
        gate.told.push(`sleep ${ms}`);
        clock.time += ms;
        return Promise.resolve();
      },
    },
    {
      flight,
      free: options.free ?? false,
      capability: 'flow.cap',
      send: (attempt): Promise<AttemptAnswer<string>> => {
        run.attempts = attempt;
        const next = answers[attempt - 1];
        if (next === undefined) throw new Error(`attempt ${attempt} was not scripted`);
        if (next === 'ok') return Promise.resolve({ ok: true, value: `data after ${attempt}`, outcome: { status: 200 } });
        const error = next instanceof ApiError ? next : next.error;
        const quotaResetAt = next instanceof ApiError ? undefined : next.quotaResetAt;
        return Promise.resolve({
          ok: false,
          failed: error,
          outcome: { status: error.status ?? undefined, code: error.code },
          quotaResetAt,
        });
      },
    },
  );
  return run;
}

async function failed(run: Run): Promise<ApiError> {
  const error = await run.result.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof ApiError, `the call failed with an ApiError, not ${String(error)}`);
  return error;
}

test('200: returned at once; the gate hears the answer once', async () => {
  const run = drive(['ok']);
  assert.equal(await run.result, 'data after 1');
  assert.deepEqual(run.gate.told, ['acquire', 'release 200']);
});

test('202: polled with a backoff from the 1 s floor, not counted against the 2 retries, with progress', async () => {
  const notReady = (after?: number): ApiError => new ApiError({ code: 'NOT_READY', status: 202, retryAfterSeconds: after });
  const run = drive([
    notReady(0),
    notReady(),
    notReady(),
    notReady(),
    failure(500, 'INTERNAL_ERROR'),
    failure(500, 'INTERNAL_ERROR'),
    'ok',
  ]);
  assert.equal(await run.result, 'data after 7');
  // "retry after 0" is held to the floor; then 2, 4 s and the 4 s ceiling; then the 5xx backoff.
  assert.deepEqual(run.sleeps.slice(0, 4), [1000, 2000, 4000, 4000]);
  assert.equal(run.sleeps.length, 6, 'two 5xx retries still allowed after four polls');
  assert.equal(run.progress.filter((m) => /building this dataset/.test(m)).length, 4);
  assert.equal(run.gate.told.filter((t) => t.startsWith('pause')).length, 0);
});

test('202 past the deadline: a recoverable NOT_READY carrying the wait it would have needed, no sleep', async () => {
  const run = drive([new ApiError({ code: 'NOT_READY', status: 202, retryAfterSeconds: 8 })], { deadlineMs: 5000 });
  const error = await failed(run);
  assert.equal(error.code, 'NOT_READY');
  assert.equal(error.recoverable, true);
  assert.equal(error.retryAfterSeconds, 8);
  assert.deepEqual(run.sleeps, []);
});

for (const code of ['RATE_LIMITED', 'CIRCUIT_OPEN'] as const) {
  test(`429 ${code}: the whole account pauses for Retry-After and the retry goes back through the gate`, async () => {
    const run = drive([failure(429, code, 7), 'ok']);
    assert.equal(await run.result, 'data after 2');
    // The gate holds the retry: the driver itself does not sleep.
    assert.deepEqual(run.gate.told, ['acquire', `release 429 ${code}`, 'pause +7000', 'acquire', 'release 200']);
    assert.ok(run.progress.some((m) => m.includes('the account pauses for 7 s')));
  });
}

test('429 IN_FLIGHT_EXCEEDED: the cap shrinks, the slot is held through the jittered wait, then the call retries', async () => {
  const run = drive([failure(429, 'IN_FLIGHT_EXCEEDED'), 'ok'], { random: 0.5 });
  assert.equal(await run.result, 'data after 2');
  assert.deepEqual(run.gate.told, [
    'acquire',
    'in-flight refused',
    'sleep 500',
    'release 429 IN_FLIGHT_EXCEEDED',
    'acquire',
    'release 200',
  ]);
});

test("429 IN_FLIGHT_EXCEEDED waits at least the server's Retry-After", async () => {
  const run = drive([failure(429, 'IN_FLIGHT_EXCEEDED', 3), 'ok']);
  await run.result;
  assert.deepEqual(run.sleeps, [3000]);
});

test('429 QUOTA_EXHAUSTED: not retried; the quota is latched until X-Quota-Reset-At', async () => {
  const run = drive([{ error: failure(429, 'QUOTA_EXHAUSTED'), quotaResetAt: T0 + 86_400_000 }]);
  assert.equal((await failed(run)).code, 'QUOTA_EXHAUSTED');
  assert.deepEqual(run.gate.told, ['acquire', 'release 429 QUOTA_EXHAUSTED', 'latch quota +86400000']);
});

test('429 QUOTA_EXHAUSTED without the reset header latches for its Retry-After', async () => {
  const run = drive([failure(429, 'QUOTA_EXHAUSTED', 120)]);
  await failed(run);
  assert.ok(run.gate.told.includes('latch quota +120000'), run.gate.told.join(', '));
});

test('503 READ_MODEL_UNAVAILABLE: waits retry_after_seconds, this call only, and retries', async () => {
  const run = drive([failure(503, 'READ_MODEL_UNAVAILABLE', 4), 'ok']);
  assert.equal(await run.result, 'data after 2');
  assert.deepEqual(run.gate.told, ['acquire', 'release 503 READ_MODEL_UNAVAILABLE', 'sleep 4000', 'acquire', 'release 200']);
});

test('503 READ_MODEL_UNAVAILABLE whose wait crosses the deadline answers now, recoverable, with the wait', async () => {
  const run = drive([failure(503, 'READ_MODEL_UNAVAILABLE', 30)], { deadlineMs: 10_000 });
  const error = await failed(run);
  assert.equal(error.code, 'READ_MODEL_UNAVAILABLE');
  assert.equal(error.recoverable, true);
  assert.equal(error.retryAfterSeconds, 30);
  assert.deepEqual(run.sleeps, []);
});

test('503 SERVICE_DISABLED: not retried; the capability is remembered for 5 minutes', async () => {
  const run = drive([failure(503, 'SERVICE_DISABLED')]);
  assert.equal((await failed(run)).code, 'SERVICE_DISABLED');
  assert.deepEqual(run.gate.told, ['acquire', 'release 503 SERVICE_DISABLED', 'remember flow.cap +300000']);
});

test('500, 502, 504 and failures before any status: 2 retries per call in all, jittered backoff from about 0.5 s', async () => {
  for (const [random, expected] of [
    [0, [250, 500]],
    [1, [500, 1000]],
  ] as const) {
    const run = drive([failure(500, 'INTERNAL_ERROR'), network(), failure(504, 'UPSTREAM_TIMEOUT'), 'ok'], { random });
    const error = await failed(run);
    assert.equal(error.code, 'UPSTREAM_TIMEOUT', 'the last failure is the answer');
    assert.equal(run.attempts, 3);
    assert.deepEqual(run.sleeps, expected);
  }
});

test("a 5xx retry waits at least the server's Retry-After", async () => {
  const run = drive([failure(502, 'UPSTREAM_ERROR', 3), 'ok']);
  await run.result;
  assert.deepEqual(run.sleeps, [3000]);
});

test('a 200 whose body breaks (RESPONSE_INVALID) is never retried: it was charged', async () => {
  const run = drive([new ApiError({ code: 'RESPONSE_INVALID', status: 200 }), 'ok']);
  assert.equal((await failed(run)).code, 'RESPONSE_INVALID');
  assert.equal(run.attempts, 1);
});

test("a code this client does not know keeps the upstream's code and acts by status: a 4xx is final, a 5xx retried", async () => {
  const refusal = drive([failure(429, 'SLOW_DOWN_PLEASE', 2), 'ok']);
  assert.equal((await failed(refusal)).code, 'SLOW_DOWN_PLEASE');
  assert.deepEqual(refusal.gate.told, ['acquire', 'release 429 SLOW_DOWN_PLEASE'], 'no pause, no retry');
  const serverSide = drive([failure(500, 'SOMETHING_NEW'), 'ok']);
  assert.equal(await serverSide.result, 'data after 2');
});

test('400, 401, 402, 403, 404, 409, 410 and 422: sent once, never retried, nothing said to the gate but the answer', async () => {
  const refusals = (Object.entries(ERROR_TABLE) as [ErrorCode, (typeof ERROR_TABLE)[ErrorCode]][]).filter(
    ([, row]) => row.status !== null && row.status >= 400 && row.status < 429,
  );
  assert.ok(refusals.length >= 10, 'the table has its refusals');
  for (const [code, row] of refusals) {
    const status = row.status ?? 0;
    const run = drive([failure(status, code), 'ok']);
    assert.equal((await failed(run)).code, code);
    assert.deepEqual(run.gate.told, ['acquire', `release ${status} ${code}`], code);
  }
  // The same statuses from something in front of the API, without an envelope.
  for (const status of [400, 401, 402, 403, 404, 409, 410, 422]) {
    const run = drive([errorFromResponse(status, undefined, undefined, undefined), 'ok']);
    await failed(run);
    assert.equal(run.attempts, 1, `${status} sent once`);
  }
});

test('a free request (discover, openapi.json) that meets a 429 neither pauses the account nor retries', async () => {
  const run = drive([failure(429, 'RATE_LIMITED', 5), 'ok'], { free: true });
  assert.equal((await failed(run)).code, 'RATE_LIMITED');
  assert.deepEqual(run.gate.told, ['acquire free', 'release 429 RATE_LIMITED']);
});
